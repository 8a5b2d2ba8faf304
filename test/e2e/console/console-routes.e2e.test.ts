import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * What the console reads besides the audit stream, without a browser: its static files (a
 * fixed set, a strict CSP) and the admin read-only routes — record metadata without bodies,
 * agent collections as names and counts, projection checkpoints with their lag.
 */

let svc: TestService;
const BODY = `console-route-body-${Date.now()}`;

const agentCall = (key: string, method: string, path: string, body?: unknown) =>
  fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  const c = await caller(svc, 'acme', { input: 'routes' });
  expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'a', body: { text: BODY }, expect: 0 })).status).toBe(200);
  expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'a', body: { text: `${BODY} 2` }, expect: 1 })).status).toBe(200);
  expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'b', body: { text: BODY }, expect: 0 })).status).toBe(200);
  const { key } = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'market' })).body;
  expect((await agentCall(key, 'PUT', '/v1/agent/collections', { collections: { questions: { fields: ['status'] }, answers: {} } })).status).toBe(200);
  for (const id of ['q1', 'q2'])
    expect((await agentCall(key, 'PUT', `/v1/agent/records/questions/${id}`, { value: { status: 'open', text: BODY } })).status).toBe(200);
  await svc.runner.catchUp();
});
afterAll(async () => svc?.stop());

describe('the console files', () => {
  it('are served from a fixed set with a strict Content-Security-Policy; nothing else is', async () => {
    for (const [path, type] of [
      ['/console', 'text/html'],
      ['/console/app.js', 'text/javascript'],
      ['/console/verify.js', 'text/javascript'],
      ['/console/style.css', 'text/css'],
    ]) {
      const res = await fetch(`${svc.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain(type);
      expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'self';/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    for (const path of ['/console/nothing.js', '/console/..%2fpackage.json', '/console/%2e%2e%2fREADME.md', '/console/index.html.bak']) {
      const res = await fetch(`${svc.url}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
    }
  });

  it('the page scripts only ever send GET', async () => {
    const index = await (await fetch(`${svc.url}/console`)).text();
    const modules = readdirSync(new URL('../../../console/', import.meta.url)).filter((f) => f.endsWith('.js'));
    expect(index).toContain('/console/app.js');
    expect(modules).toEqual(expect.arrayContaining(['http.js', 'timeline.js', 'operator.js']));
    const texts = await Promise.all(modules.map(async (m) => (await fetch(`${svc.url}/console/${m}`)).text()));
    const methods = texts.flatMap((t) => [...t.matchAll(/method:\s*'([A-Z]+)'/g)].map((m) => m[1]));
    expect(methods).toEqual(['GET']);
    expect(texts.join('\n')).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });
});

describe('the console admin routes', () => {
  it("list a plugin's records with every version, metadata only", async () => {
    const r = await svc.admin('GET', '/v1/tenants/acme/console/records?plugin=notes');
    expect(r.status).toBe(200);
    const refs = r.body.records.map((x: any) => `${x.scope}#${x.key}#${x.version}`);
    expect([...refs].sort()).toEqual(['tenant#a#1', 'tenant#a#2', 'tenant#b#1']);
    // Each record's versions together, newest first (records may tie on their time, so their order is not asserted).
    expect(refs.indexOf('tenant#a#1')).toBe(refs.indexOf('tenant#a#2') + 1);
    expect(r.body.records[0]).toMatchObject({ state: 'active', writer_agent: 'scribe', kind: expect.any(String) });
    expect(JSON.stringify(r.body)).not.toContain(BODY);
    expect(Object.keys(r.body.records[0])).not.toContain('body');
    const scoped = await svc.admin('GET', '/v1/tenants/acme/console/records?plugin=notes&scope=tenant');
    expect(scoped.body.records).toHaveLength(3);
    expect((await svc.admin('GET', '/v1/tenants/acme/console/records?plugin=notes&scope=project:x')).body.records).toEqual([]);
    expect((await svc.admin('GET', '/v1/tenants/nobody/console/records?plugin=notes')).status).toBe(404);
    expect((await svc.admin('GET', '/v1/tenants/acme/console/records')).status).toBe(400);
  });

  it("give each agent's collections as names and counts, never a value", async () => {
    const r = await svc.admin('GET', '/v1/tenants/acme/console/collections');
    expect(r.status).toBe(200);
    expect(r.body.agents).toEqual([
      {
        agent: 'market',
        collections: [
          { name: 'questions', records: 2, newest_ms: expect.any(Number) },
          { name: 'answers', records: 0, newest_ms: null },
        ],
      },
    ]);
    expect(JSON.stringify(r.body)).not.toContain(BODY);
  });

  it('give every projection its checkpoint and lag behind the log', async () => {
    const r = await svc.admin('GET', '/v1/console/projections');
    expect(r.status).toBe(200);
    expect(r.body.head).toBeGreaterThan(0);
    const audit = r.body.projections.find((p: any) => p.name === 'audit');
    expect(audit).toMatchObject({ position: expect.any(Number), lag_events: expect.any(Number), lag_ms: expect.any(Number) });
    for (const p of r.body.projections) expect(p.lag_events).toBe(Math.max(0, r.body.head - p.position));
    expect((await svc.admin('GET', '/v1/console/tenants')).body).toEqual({ tenants: ['acme'] });
  });

  it('refuse an auditor key', async () => {
    const { key } = (await svc.admin('POST', '/v1/tenants/acme/auditor-keys', {})).body;
    for (const path of [
      '/v1/console/tenants',
      '/v1/console/projections',
      '/v1/tenants/acme/console/records?plugin=notes',
      '/v1/tenants/acme/console/collections',
    ])
      expect((await agentCall(key, 'GET', path)).status).toBe(401);
  });
});
