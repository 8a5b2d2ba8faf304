import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS_GO, CLIENTS_PYTHON, missing, python } from '../../support/python.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The Python and Go records clients against a running service: each suite gets a freshly minted
// call's _meta (and the Python one an agent key) and must pass whole.
const noPython = missing('mcp');
const noGo = missing('go');
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
}, 120_000);
afterAll(async () => svc?.stop());

const mint = async (job: string) => {
  expect((await svc.admin('POST', '/v1/tenants/acme/jobs', { id: job, agent: 'scribe', plugin: 'notes', subject: 's', input: 'clients' })).status).toBe(201);
  const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${job}/calls`, { function: 'save' });
  expect(minted.status).toBe(201);
  return minted.body._meta as Record<string, unknown>;
};

// Asynchronous: the service runs in this process and must go on answering while the suite runs.
const run = (command: string, args: string[], cwd: string, env: Record<string, string>) =>
  new Promise<{ status: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (status) => resolve({ status, output }));
  });

describe('the records clients against a running service', () => {
  it.skipIf(noPython !== null)('Python: records, results, files and the agent records API pass their suite', async () => {
    const meta = await mint('py-records');
    const { key } = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'concierge' })).body as { key: string };
    const r = await run(python(), ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/test_records_service.py'], CLIENTS_PYTHON, {
      CUSTODIAN_TEST_SERVICE: JSON.stringify({ meta, url: svc.url, agent_key: key }),
      PYTHONPATH: CLIENTS_PYTHON,
    });
    expect(r.output).toMatch(/12 passed/);
    expect(r.status, r.output).toBe(0);
  });

  it.skipIf(noGo !== null)('Go: the records client from _meta passes its suite', async () => {
    const meta = await mint('go-records');
    const r = await run('go', ['test', '-count=1', '-run', 'TestAgainstService', '-v', './records'], CLIENTS_GO, { CUSTODIAN_TEST_META: JSON.stringify(meta) });
    expect(r.output).toMatch(/--- PASS: TestAgainstService/);
    expect(r.status, r.output).toBe(0);
  });
});
