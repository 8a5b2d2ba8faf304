import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missing, python, ROOT } from '../../support/python.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * schemathesis, driven by /openapi.json alone, against the running service: every check
 * (`--checks all`: no 5xx, answers as documented — statuses, media types, schemas — data the
 * schema allows accepted and data it forbids refused, credentials required), a bounded number
 * of examples per operation and a fixed seed, so a run is the same run every time. Credentials
 * come from test/support/schemathesis/custodian_auth.py (the admin key; tickets and agent keys
 * minted as the run goes); schemathesis.toml beside it names the few operations where a request
 * the schema allows may still be refused (state, signatures). The one finding allowed is
 * `unsupported_method`: a method no route serves (QUERY, TRACE) answers 400 or 404, not 405.
 */
const noSchemathesis = missing('schemathesis');
if (noSchemathesis) console.log(`skipped: ${noSchemathesis}`);

const HOOKS = join(ROOT, 'test/support/schemathesis');
const EXAMPLES_PER_OPERATION = '15';

let svc: TestService;
const dir = mkdtempSync(join(tmpdir(), 'schemathesis-'));
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string>) =>
  new Promise<{ status: number | null; output: string }>((resolve) => {
    // schemathesis keeps a cache of its findings (.schemathesis) in its working directory: a fresh one per run.
    const child = spawn(python(), ['-m', 'schemathesis.cli', ...args], { cwd: dir, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (e) => resolve({ status: -1, output: String(e) }));
    child.on('close', (status) => resolve({ status, output }));
  });

describe('schemathesis against the running service', () => {
  it.skipIf(noSchemathesis !== null)(
    'finds nothing but unsupported methods',
    async () => {
      const r = await run(
        [
          '--config-file',
          join(HOOKS, 'schemathesis.toml'),
          'run',
          `${svc.url}/openapi.json`,
          '--checks',
          'all',
          '--max-examples',
          EXAMPLES_PER_OPERATION,
          '--seed',
          '1',
          '--workers',
          '1',
          '--no-shrink',
          '--report',
          'json',
          '--report-dir',
          join(dir, 'report'),
        ],
        { PYTHONPATH: HOOKS, PYTHONDONTWRITEBYTECODE: '1', SCHEMATHESIS_HOOKS: 'custodian_auth', CUSTODIAN_URL: svc.url, CUSTODIAN_ADMIN_KEY: ADMIN_KEY },
      );
      const reports = readdirSync(join(dir, 'report')).filter((f) => f.endsWith('.json'));
      expect(reports, r.output).toHaveLength(1);
      const report = JSON.parse(readFileSync(join(dir, 'report', reports[0]!), 'utf8'));
      console.log(
        `schemathesis ${report.schemathesis_version}: ${report.test_cases.generated} test cases on ${report.operations.tested} operations in ${Math.round(report.running_time)} s`,
      );
      expect(report.complete, r.output).toBe(true);
      expect(report.operations.tested).toBe(report.operations.total);
      expect(report.errors, r.output).toEqual([]);
      const findings = report.failures.filter((f: { type: string }) => f.type !== 'UnsupportedMethodResponse');
      expect(findings, r.output).toEqual([]);
    },
    400_000,
  );
});
