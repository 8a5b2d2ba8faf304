import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliProgram } from '../../../adapters/cli/program.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { freePort as closedPort } from '../../support/free-port.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');
// Ten CLI processes a case, two at a time, on a shared machine.
const MANY = 300_000;
const work = mkdtempSync(path.join(tmpdir(), 'custodian-cli-errors-'));
const importFile = path.join(work, 'export.jsonl');
writeFileSync(importFile, '{"manifest":{}}\n');

/**
 * Every command that talks to the service (it takes --url), with arguments that pass commander.
 * `mcp` is not here: it serves stdio and reaches the service per tool call, answering a tool error.
 */
const COMMANDS: Record<string, string[]> = {
  export: ['export', '--tenant', 'acme'],
  import: ['import', importFile, '--tenant', 'acme'],
  erase: ['erase', '--tenant', 'acme', '--subject', 'user:ada'],
  'records export': ['records', 'export', '--tenant', 'acme', '--agent', 'planner'],
  'hold place': ['hold', 'place', '--tenant', 'acme', '--selector', '{"data_subject":"user:ada"}', '--reason', 'litigation'],
  'hold release': ['hold', 'release', 'h1', '--tenant', 'acme'],
  'tenant remove': ['tenant', 'remove', '--tenant', 'acme', '--yes'],
  'retention run': ['retention', 'run', '--tenant', 'acme'],
  'audit replay': ['audit', 'replay', '--tenant', 'acme'],
  'audit download': ['audit', 'download', '--tenant', 'acme'],
  'audit checkpoint': ['audit', 'checkpoint', '--tenant', 'acme'],
};

const leafCommands = (c: Command, prefix = ''): { name: string; command: Command }[] =>
  c.commands.flatMap((sub) => {
    const name = `${prefix}${sub.name()}`;
    return sub.commands.length > 0 ? leafCommands(sub, `${name} `) : [{ name, command: sub }];
  });

const run = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, ['bin/custodian.js', ...args], {
      cwd: REPO,
      env: { ...process.env, CUSTODIAN_DATA_DIR: work, CUSTODIAN_DEBUG: '', ...env },
      timeout: 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

/** Runs every command, two at a time (the machine is shared). */
const runAll = async (env: Record<string, string>) => {
  const names = Object.keys(COMMANDS);
  const results: Record<string, Awaited<ReturnType<typeof run>>> = {};
  const next = async (): Promise<void> => {
    const name = names.shift();
    if (name === undefined) return;
    results[name] = await run(COMMANDS[name]!, env);
    return next();
  };
  await Promise.all([next(), next()]);
  return results;
};

const expectOneLine = (result: Awaited<ReturnType<typeof run>>, says: RegExp) => {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n');
  expect(lines.at(-1)).toBe('');
  expect(lines.slice(0, -1), result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^custodian: /);
  expect(lines[0]).toMatch(says);
  expect(result.stderr).not.toMatch(/\n\s+at |TypeError|fetch failed/);
};

describe('a CLI command whose service is unreachable or refusing says so in one line and exits 1', () => {
  let service: TestService;
  let resetting: Server;
  let resettingUrl = '';

  beforeAll(async () => {
    service = await startTestService();
    // A listener that drops every connection before answering.
    resetting = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    resettingUrl = `http://127.0.0.1:${(resetting.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await service?.stop();
    await new Promise((resolve) => resetting?.close(resolve));
    rmSync(work, { recursive: true, force: true });
  });

  it('the table here names every command that takes --url but mcp', () => {
    const remote = leafCommands(cliProgram())
      .filter(({ command }) => command.options.some((o) => o.long === '--url'))
      .map(({ name }) => name)
      .filter((name) => name !== 'mcp');
    expect(Object.keys(COMMANDS).sort()).toEqual(remote.sort());
  });

  it(
    'given a port nothing listens on, each says it cannot reach the service and how to start it',
    async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const results = await runAll({ CUSTODIAN_URL: url });
      for (const [name, result] of Object.entries(results)) {
        expect.soft(result.stderr, name).toMatch(/cannot reach the service at .*nothing is listening there.*custodian start/);
        expectOneLine(result, /--url/);
      }
    },
    MANY,
  );

  it(
    'given a listener that drops the connection, each says the connection closed before an answer',
    async () => {
      const results = await runAll({ CUSTODIAN_URL: resettingUrl });
      for (const result of Object.values(results)) expectOneLine(result, /cannot reach the service at .*closed before an answer/);
    },
    MANY,
  );

  it(
    'given the running service and a wrong admin key, each says the service refused it and to give the admin key',
    async () => {
      const results = await runAll({ CUSTODIAN_URL: service.url, CUSTODIAN_ADMIN_KEY: 'not-the-admin-key' });
      for (const result of Object.values(results))
        expectOneLine(result, /the service refused (GET|POST|DELETE) \/v1\/tenants\/acme(\/\S*)? with 40[13] .*admin key/);
    },
    MANY,
  );

  it('given a selector that is not JSON, hold place says so in one line and exits 1', async () => {
    const result = await run(['hold', 'place', '--tenant', 'acme', '--selector', '{', '--reason', 'r'], { CUSTODIAN_URL: service.url });
    expectOneLine(result, /--selector is not JSON/);
  });

  it('given a DATABASE_URL nothing listens on, start says so in one line and exits 1', async () => {
    const port = await closedPort();
    const result = await run(['start', '--port', String(await closedPort())], { DATABASE_URL: `postgres://custodian:custodian@127.0.0.1:${port}/custodian` });
    expectOneLine(result, /cannot use the PostgreSQL DATABASE_URL names .*ECONNREFUSED.*check DATABASE_URL/);
  }, 120_000);

  it('--version prints the package version', async () => {
    const { version } = (await import('../../../package.json', { with: { type: 'json' } })).default as { version: string };
    const result = await run(['--version'], {});
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});
