import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleImage, envOf, type Instruction } from '../../support/dockerfile.ts';
import { freshDatabase } from '../../support/database.ts';
import { firstRunEnv, REPO } from '../../support/npm-start.ts';
import { freePort } from '../../support/free-port.ts';

/**
 * The container image, without a Docker engine: exactly the files the Dockerfile's COPY lines
 * take (less what .dockerignore names) in a directory of their own, its `npm ci` run there
 * (production dependencies only, as in the image), then its CMD started against this run's
 * PostgreSQL through DATABASE_URL. A file the image misses fails here as it would in the image.
 */
const root = mkdtempSync(path.join(tmpdir(), 'custodian-image-'));
let app = '';
let instructions: Instruction[] = [];
let imageEnv: NodeJS.ProcessEnv = {};

// The RUN lines that act outside the app directory: the data volume, made per test here.
const OUTSIDE_APP = /^mkdir -p \/data && chown node:node \/data$/;

const sh = (command: string, cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile('sh', ['-c', command], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

const cmdOf = (stage: Instruction[]): string[] => {
  const cmd = stage.filter((i) => i.keyword === 'CMD').at(-1);
  if (!cmd) throw new Error('the Dockerfile has no CMD');
  return JSON.parse(cmd.args) as string[];
};

beforeAll(async () => {
  const image = assembleImage(REPO, root);
  app = path.join(root, image.workdir);
  instructions = image.instructions;
  const base = firstRunEnv({});
  imageEnv = { ...base, ...Object.assign({}, ...instructions.filter((i) => i.keyword === 'ENV').map((i) => envOf(i.args))) };
  for (const { keyword, args } of instructions) {
    if (keyword !== 'RUN' || OUTSIDE_APP.test(args)) continue;
    if (!/^npm ci\b/.test(args)) throw new Error(`RUN ${args}: this test does not know how to run it; teach it`);
    // As the image builds it, but from the warm npm cache when it can.
    const install = await sh(args, app, { ...imageEnv, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' });
    if (install.code !== 0) throw new Error(`RUN ${args} failed:\n${install.stderr}`);
  }
}, 900_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the container image', () => {
  it('holds no development dependency and no test', () => {
    expect(existsSync(path.join(app, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(path.join(app, 'node_modules', 'tsx'))).toBe(true);
    expect(existsSync(path.join(app, 'test'))).toBe(false);
  });

  it('every relative import of the TypeScript it holds names a file it holds', () => {
    const sources = (readdirSync(app, { recursive: true, encoding: 'utf8' }) as string[]).filter(
      (f) => f.endsWith('.ts') && !f.startsWith(`node_modules${path.sep}`),
    );
    expect(sources).toContain(path.join('adapters', 'cli', 'main.ts'));
    const missing = sources.flatMap((file) =>
      [...readFileSync(path.join(app, file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)]
        .map((m) => path.join(path.dirname(file), m[1]!))
        .filter((target) => !existsSync(path.join(app, target)))
        .map((target) => `${file} -> ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('custodian mcp loads and answers an MCP initialize', async () => {
    const [node, bin] = cmdOf(instructions);
    const child = spawn(node!, [bin!, 'mcp', '--agent-key', 'an-agent-key', '--url', 'http://127.0.0.1:9'], { cwd: app, env: imageEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('close', resolve));
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'image-test', version: '1' } },
    };
    child.stdin.end(`${JSON.stringify(initialize)}\n`);
    expect(await exit, stderr).toBe(0);
    const { version } = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as { version: string };
    expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: 'custodian-records', version } } });
  }, 120_000);

  it.each([[['--help']], [['mcp', '--help']], [['audit', 'verify', '--help']], [['--version']]])(
    'custodian %j loads',
    async (args) => {
      const [node, bin] = cmdOf(instructions);
      const result = await sh([node, bin, ...args].map((a) => `'${a}'`).join(' '), app, imageEnv);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(args[0] === '--version' ? /^\d+\.\d+\.\d+\n$/ : /^Usage: custodian/);
    },
    120_000,
  );

  it('its CMD starts the service, which answers /healthz on PostgreSQL through DATABASE_URL', async () => {
    const db = await freshDatabase();
    const dataDir = path.join(root, 'data');
    mkdirSync(dataDir, { recursive: true });
    const port = await freePort();
    // Where the container would bind and write: the loopback and a directory of this test's.
    const env = { ...imageEnv, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', CUSTODIAN_DATA_DIR: dataDir };
    const [command, ...args] = cmdOf(instructions);
    const child = spawn(command!, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    let exited = false;
    const exit = new Promise<void>((resolve) =>
      child.once('exit', () => {
        exited = true;
        resolve();
      }),
    );
    try {
      let health: { status: number; body: string } | null = null;
      while (health === null) {
        if (exited) throw new Error(`the image's CMD exited before it listened:\n${output}`);
        health = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          async (r) => ({ status: r.status, body: await r.text() }),
          () => null,
        );
        if (health === null) await new Promise((r) => setTimeout(r, 250));
      }
      expect(health.status, output).toBe(200);
      // Its log lives in the database DATABASE_URL names, not in an embedded server of its own.
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query<{ log: string | null }>("SELECT to_regclass('custodian_events')::text AS log");
      await client.end();
      expect(rows).toEqual([{ log: 'custodian_events' }]);
    } finally {
      child.kill('SIGTERM');
      await exit;
      await db.drop();
    }
  }, 300_000);
});
