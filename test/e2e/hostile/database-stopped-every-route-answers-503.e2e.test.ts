import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstRunEnv, REPO } from '../../support/npm-start.ts';
import { freePort } from '../../support/free-port.ts';

/**
 * Two `custodian start` on one data directory, as an operator might run them: the first starts
 * the embedded PostgreSQL, the second finds it running and uses it. Stopping the first stops that
 * database under the second, which must then answer every route that needs the database 503
 * `unavailable` (never 500), and keep running.
 */
const dataDir = mkdtempSync(path.join(tmpdir(), 'custodian-db-stopped-'));

interface Instance {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  output(): string;
}

const start = async (): Promise<Instance> => {
  const port = await freePort();
  const env = firstRunEnv({ PORT: String(port), CUSTODIAN_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const child = spawn(process.execPath, [path.join(REPO, 'bin/custodian.js'), 'start'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`custodian start exited before it listened:\n${output}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, child, exited, output: () => output };
};

const instances: Instance[] = [];
let first: Instance;
let second: Instance;
let adminKey = '';
let ticket = '';
let auditorKey = '';
let agentKey = '';

const call = async (url: string, method: string, route: string, key: string, body?: unknown) => {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the assertion shows the text
  }
  return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after') };
};

beforeAll(async () => {
  first = await start();
  instances.push(first);
  adminKey = readFileSync(path.join(dataDir, 'secrets/admin-key'), 'utf8').trim();
  const admin = (method: string, route: string, body?: unknown) => call(first.url, method, route, adminKey, body);
  expect((await admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect((await admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  expect((await admin('POST', '/v1/tenants/acme/jobs', { id: 'job-1', agent: 'scribe', plugin: 'notes', subject: 'alice', input: 'x' })).status).toBe(201);
  ticket = (await admin('POST', '/v1/tenants/acme/jobs/job-1/calls', { function: 'save' })).body._meta['oz0/records'].ticket;
  auditorKey = (await admin('POST', '/v1/tenants/acme/auditor-keys')).body.key;
  agentKey = (await admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'scribe' })).body.key;

  second = await start();
  instances.push(second);
  // The second instance works while the first one's database runs: a record through it.
  const put = await call(second.url, 'POST', '/v1/records', ticket, { op: 'put', scope: 'tenant', record_key: 'a', body: { text: 'x' }, expect: 0 });
  expect(put.status).toBe(200);

  // The first stops cleanly, and its embedded PostgreSQL with it.
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
}, 180_000);

afterAll(async () => {
  // SIGTERM, so an instance that started an embedded server stops it.
  for (const i of instances) if (i.child.exitCode === null) i.child.kill('SIGTERM');
  await Promise.all(instances.map((i) => i.exited));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a running service whose database stopped', () => {
  it('said at start that it uses the embedded PostgreSQL another custodian start runs', () => {
    expect(second.output()).toContain('already running');
  });

  it.each([
    ['admin', 'POST', '/v1/tenants', 'admin', { id: 'globex' }],
    ['admin', 'GET', '/v1/tenants/acme', 'admin', undefined],
    ['admin', 'POST', '/v1/tenants/acme/jobs/job-1/calls', 'admin', { function: 'save' }],
    ['admin', 'POST', '/v1/tenants/acme/holds', 'admin', { selector: { data_subject: 'user:alice' }, reason: 'r' }],
    ['records', 'POST', '/v1/records', 'ticket', { op: 'get', scope: 'tenant', record_key: 'a' }],
    ['records', 'POST', '/v1/records', 'ticket', { op: 'put', scope: 'tenant', record_key: 'a', body: { text: 'y' }, expect: 1 }],
    ['audit', 'GET', '/v1/tenants/acme/audit', 'admin', undefined],
    ['audit', 'GET', '/v1/tenants/acme/audit/checkpoint', 'auditor', undefined],
    ['console', 'GET', '/v1/console/tenants', 'admin', undefined],
    ['console', 'GET', '/v1/tenants/acme/console/records?plugin=notes', 'admin', undefined],
    ['agent', 'GET', '/v1/agent/collections', 'agent', undefined],
    ['metrics', 'GET', '/metrics', 'none', undefined],
  ] as const)('%s: %s %s answers 503 unavailable, saying what to do', async (_group, method, route, who, body) => {
    const key = { admin: adminKey, ticket, auditor: auditorKey, agent: agentKey, none: '' }[who];
    const res = await call(second.url, method, route, key, body);
    expect({ status: res.status, error: res.body?.error }).toEqual({ status: 503, error: 'unavailable' });
    // The agent API's messages begin with "records: ".
    expect(res.body.message).toMatch(/^(records: )?the database does not answer: try again shortly$/);
    if (route !== '/metrics') expect(res.retryAfter).toBe('5');
  });

  it('/healthz answers 503 unavailable', async () => {
    const res = await call(second.url, 'GET', '/healthz', '');
    expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: { status: 'unavailable', reason: 'the database does not answer' } });
  });

  it('no documented operation answers 500: any 5xx is 503 unavailable', async () => {
    const doc = (await call(second.url, 'GET', '/openapi.json', '')).body as { paths: Record<string, Record<string, unknown>> };
    const answers: string[] = [];
    for (const [template, operations] of Object.entries(doc.paths))
      for (const method of Object.keys(operations)) {
        const route = template.replace(/\{t\}/g, 'acme').replace(/\{[^}]+\}/g, 'x');
        const key = route.startsWith('/v1/agent/')
          ? agentKey
          : ['/v1/records', '/v1/files', '/v1/results'].some((r) => route.startsWith(r))
            ? ticket
            : adminKey;
        const res = await call(second.url, method.toUpperCase(), route, key, ['post', 'put'].includes(method) ? {} : undefined);
        if (res.status >= 500 && (res.status !== 503 || (res.body?.error ?? res.body?.status) !== 'unavailable'))
          answers.push(`${method.toUpperCase()} ${template}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    expect(answers).toEqual([]);
  });

  it('the CLI says in one line that the database does not answer, and what to do', async () => {
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(REPO, 'bin/custodian.js'), 'export', '--tenant', 'acme', '--url', second.url], {
        env: { ...firstRunEnv({}), CUSTODIAN_ADMIN_KEY: adminKey },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('close', (code) => resolve({ code, stderr }));
    });
    expect(run).toEqual({
      code: 1,
      stderr:
        "custodian: the service refused GET /v1/tenants/acme/export with 503 unavailable: the database does not answer: try again shortly; if it persists, check that the service's database is running (its log says why)\n",
    });
  });

  it('serves again, writes and reads, once a custodian start runs the database again', async () => {
    instances.push(await start());
    expect((await call(second.url, 'POST', '/v1/tenants', adminKey, { id: 'globex' })).status).toBe(201);
    const put = await call(second.url, 'POST', '/v1/records', ticket, { op: 'put', scope: 'tenant', record_key: 'a', body: { text: 'z' }, expect: 1 });
    expect({ status: put.status, version: put.body.version }).toEqual({ status: 200, version: 2 });
    expect((await call(second.url, 'GET', '/healthz', '')).status).toBe(200);
  });

  it('keeps running', () => {
    expect({ exitCode: second.child.exitCode, signal: second.child.signalCode }, second.output().slice(-4000)).toEqual({ exitCode: null, signal: null });
  });
});
