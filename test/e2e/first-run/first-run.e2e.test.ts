import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmStart, REPO, type NpmStart } from '../../support/npm-start.ts';

const SECTION = '## Your first record in one minute';

/** The fenced sh blocks of the README section, exactly as written there. */
const firstRunCommands = (): string => {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${SECTION}\n`);
  if (start < 0) throw new Error(`README has no "${SECTION}" section`);
  const end = readme.indexOf('\n## ', start + SECTION.length + 2);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  if (blocks.length === 0) throw new Error(`"${SECTION}" has no sh block`);
  return blocks.join('\n');
};

let service: NpmStart;
let run: { status: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  service = await npmStart();
  // As a user pastes them: bash in the checkout, with the environment `npm start` had.
  const result = spawnSync('bash', ['-c', `set -euo pipefail\n${firstRunCommands()}`], {
    cwd: REPO,
    env: service.env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  run = { status: result.status, stdout: result.stdout, stderr: result.stderr };
}, 240_000);
afterAll(async () => service?.stop(), 60_000);

describe('README: your first record in one minute, run verbatim against npm start', () => {
  it('runs to the end', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('makes the tenant, the plugin and a running job, and puts version 1', () => {
    const lines = run.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual(['acme', 'notes', 'running', '1']);
  });

  it('gets back the body it put', () => {
    expect(JSON.parse(run.stdout.split('\n')[4]!)).toEqual({ text: 'Wednesdays' });
  });

  it('shows the write and the read in the audit stream, naming the job and the record version', () => {
    const audit = run.stdout
      .split('\n')
      .slice(5)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { kind: string; job: string; records: unknown[] });
    expect(audit.map((e) => e.kind)).toEqual(['write', 'read']);
    for (const entry of audit) {
      expect(entry.job).toBe('job-1');
      expect(entry.records).toEqual([{ scope: 'tenant', key: 'decisions/deploy', version: 1 }]);
    }
    expect(JSON.stringify(audit)).not.toContain('Wednesdays');
  });

  it('ends with the console address of the service it talked to', () => {
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`The console: ${service.url}/console`);
  });

  it('used the admin key npm start printed on its first run', () => {
    expect(service.stdout()).toMatch(/Admin key \(printed once, kept in .*\/secrets\/admin-key\):\n {2}\S+\n/);
  });

  it('logs JSON lines, its stdout being a pipe and not a terminal', () => {
    const logs = service
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(logs.map((l) => l.msg)).toContain('custodian is listening');
  });
});
