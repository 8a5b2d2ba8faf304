import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * The read-only routes the console pages stand on: audit paging that keeps every line as it
 * was hashed, the key check at sign-in, the filters' pickers, the agents' records as ids and
 * times, and the operator's event browser (admin key only, sealed data kept sealed).
 */

let svc: TestService;
let auditorKey = '';
let otherAuditor = '';
const SECRET = `console-reads-secret-${Date.now()}`;

const call = async (key: string | null, path: string) => {
  const res = await fetch(`${svc.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // JSON Lines or text
  }
  return { status: res.status, body, text };
};

beforeAll(async () => {
  svc = await startTestService();
  for (const id of ['acme', 'other']) expect((await svc.admin('POST', '/v1/tenants', { id })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  const c = await caller(svc, 'acme', { input: 'reads' });
  for (const key of ['a', 'b', 'c']) expect((await c.rec({ op: 'put', scope: 'tenant', record_key: key, body: { text: SECRET }, expect: 0 })).status).toBe(200);
  expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'a', body: { text: SECRET }, expect: 1 })).status).toBe(200);
  expect((await c.rec({ op: 'get', scope: 'tenant', record_key: 'a' })).status).toBe(200);
  const { key } = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'market' })).body;
  const agent = (method: string, path: string, body: unknown) =>
    fetch(`${svc.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await agent('PUT', '/v1/agent/collections', { collections: { questions: { fields: ['status'] }, notes: {} } })).status).toBe(200);
  for (const id of ['q1', 'q2', 'q3'])
    expect((await agent('PUT', `/v1/agent/records/questions/${id}`, { value: { status: 'open', text: SECRET } })).status).toBe(200);
  auditorKey = (await svc.admin('POST', '/v1/tenants/acme/auditor-keys', {})).body.key;
  otherAuditor = (await svc.admin('POST', '/v1/tenants/other/auditor-keys', {})).body.key;
  await svc.runner.catchUp();
});
afterAll(async () => svc?.stop());

describe('audit paging', () => {
  it('answers a stretch of the very lines the whole stream answers, forwards and backwards, with filters kept', async () => {
    const whole = (await call(ADMIN_KEY, '/v1/tenants/acme/audit')).text.split('\n').filter(Boolean);
    expect(whole.length).toBeGreaterThan(6);
    const page = (await call(auditorKey, '/v1/tenants/acme/audit?from_seq=2&limit=3')).text;
    expect(page).toBe(
      whole
        .slice(2, 5)
        .map((l) => `${l}\n`)
        .join(''),
    );
    const before = (await call(auditorKey, '/v1/tenants/acme/audit?before_seq=5&limit=2')).text;
    expect(before).toBe(
      whole
        .slice(3, 5)
        .map((l) => `${l}\n`)
        .join(''),
    );
    const writes = whole.filter((l) => JSON.parse(l).kind === 'write');
    expect(writes.length).toBe(4);
    const second = JSON.parse(writes[1]!).seq;
    expect((await call(auditorKey, `/v1/tenants/acme/audit?kind=write&from_seq=${second}&limit=2`)).text).toBe(
      writes
        .slice(1, 3)
        .map((l) => `${l}\n`)
        .join(''),
    );
    for (const bad of ['limit=0', 'limit=1001', 'from_seq=-1', 'before_seq=x', 'limit=1e2'])
      expect((await call(auditorKey, `/v1/tenants/acme/audit?${bad}`)).status).toBe(400);
  });
});

describe('proofs for a page', () => {
  it('are the very proofs the audit stream serves one by one, for the entries asked only', async () => {
    const size = (await call(auditorKey, '/v1/tenants/acme/audit/checkpoint')).body.size;
    const r = await call(auditorKey, `/v1/tenants/acme/console/audit-proofs?leaves=0,2,${size - 1}&size=${size}`);
    expect(r.status).toBe(200);
    const one = async (leaf: number) => (await call(auditorKey, `/v1/tenants/acme/audit/proof?leaf=${leaf}&size=${size}`)).body;
    expect(r.body.proofs).toEqual([await one(0), await one(2), await one(size - 1)]);
    const smaller = (await call(auditorKey, '/v1/tenants/acme/console/audit-proofs?leaves=1&size=3')).body.proofs[0];
    expect(smaller).toEqual((await call(auditorKey, '/v1/tenants/acme/audit/proof?leaf=1&size=3')).body);
    const many = Array.from({ length: 101 }, (_, i) => i % size).join(',');
    for (const bad of [
      `leaves=${size}&size=${size}`,
      `leaves=0&size=${size + 1}`,
      `leaves=${many}&size=${size}`,
      'leaves=&size=1',
      'leaves=1e0&size=2',
      'leaves=0',
    ])
      expect((await call(auditorKey, `/v1/tenants/acme/console/audit-proofs?${bad}`)).status).toBe(400);
    expect((await call(otherAuditor, `/v1/tenants/acme/console/audit-proofs?leaves=0&size=${size}`)).status).toBe(401);
  });
});

describe('the sign-in check', () => {
  it('says which key it is and the pages it opens; a wrong key is refused, another tenant’s auditor key too', async () => {
    expect((await call(ADMIN_KEY, '/v1/tenants/acme/console/session')).body).toMatchObject({
      tenant: 'acme',
      role: 'admin',
      pages: expect.arrayContaining(['events', 'audit']),
    });
    const auditor = (await call(auditorKey, '/v1/tenants/acme/console/session')).body;
    expect(auditor).toMatchObject({ tenant: 'acme', role: 'auditor' });
    expect(auditor.pages).toContain('audit');
    expect(auditor.pages).not.toContain('events');
    expect(auditor.pages).not.toContain('tenants');
    for (const key of ['wrong-key', `${ADMIN_KEY}x`, otherAuditor, null]) expect((await call(key, '/v1/tenants/acme/console/session')).status).toBe(401);
    expect((await call(ADMIN_KEY, '/v1/tenants/nobody/console/session')).status).toBe(404);
  });
});

describe('the filter pickers', () => {
  it('list the kinds, jobs and records the log names, with the size and time span', async () => {
    const r = await call(auditorKey, '/v1/tenants/acme/console/audit-facets');
    expect(r.status).toBe(200);
    const whole = (await call(ADMIN_KEY, '/v1/tenants/acme/audit')).text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(r.body.size).toBe(whole.length);
    expect(r.body.first_at).toBe(whole[0].at);
    expect(r.body.kinds.find((k: any) => k.kind === 'write').entries).toBe(4);
    const job = whole.find((e) => e.kind === 'write').job;
    expect(r.body.jobs.map((j: any) => j.job)).toContain(job);
    expect(r.body.jobs.find((j: any) => j.job === job)).toMatchObject({ agent: 'scribe' });
    expect(r.body.records).toEqual(
      expect.arrayContaining([
        { record: 'tenant#a', versions: [1, 2] },
        { record: 'tenant#b', versions: [1] },
      ]),
    );
    expect((await call(otherAuditor, '/v1/tenants/acme/console/audit-facets')).status).toBe(401);
  });
});

describe("the agents' records", () => {
  it('are listed by collection, newest first, as ids and times only, to the admin key and the tenant’s auditor key', async () => {
    for (const key of [ADMIN_KEY, auditorKey]) {
      const r = await call(key, '/v1/tenants/acme/console/agent-records');
      expect(r.status).toBe(200);
      const [market] = r.body.agents;
      expect(market.agent).toBe('market');
      const questions = market.collections.find((c: any) => c.name === 'questions');
      expect(questions.total).toBe(3);
      expect(questions.records.map((x: any) => x.id)).toEqual(['q3', 'q2', 'q1']);
      expect(Object.keys(questions.records[0]).sort()).toEqual(['createdAt', 'id', 'updatedAt']);
      expect(market.collections.find((c: any) => c.name === 'notes')).toEqual({ name: 'notes', total: 0, records: [] });
      expect(r.text).not.toContain(SECRET);
      expect(r.text).not.toContain('open');
    }
    expect((await call(ADMIN_KEY, '/v1/tenants/acme/console/agent-records?limit=1')).body.agents[0].collections[0].records).toHaveLength(1);
    expect((await call(ADMIN_KEY, '/v1/tenants/acme/console/agent-records?agent=nobody')).status).toBe(404);
    expect((await call(otherAuditor, '/v1/tenants/acme/console/agent-records')).status).toBe(401);
  });
});

describe('the event browser', () => {
  it('lists streams by prefix and their events, sealed values kept sealed, to the admin key only', async () => {
    const streams = await call(ADMIN_KEY, `/v1/events/streams?prefix=${encodeURIComponent('agent:acme:')}`);
    expect(streams.status).toBe(200);
    expect(streams.body.streams.length).toBeGreaterThan(0);
    expect(streams.body.streams.every((s: any) => s.stream.startsWith('agent:acme:'))).toBe(true);
    const all = (await call(ADMIN_KEY, '/v1/events/streams?limit=500')).body.streams.map((s: any) => s.stream);
    expect(all.length).toBeGreaterThan(streams.body.streams.length);
    const paged = await call(ADMIN_KEY, '/v1/events/streams?limit=2');
    expect(paged.body).toMatchObject({ more: true });
    expect((await call(ADMIN_KEY, `/v1/events/streams?limit=2&after=${encodeURIComponent(paged.body.streams[1].stream)}`)).body.streams[0].stream).toBe(all[2]);

    const stream = streams.body.streams.find((s: any) => s.stream.startsWith('agent:acme:market')).stream;
    const events = await call(ADMIN_KEY, `/v1/events/streams/${encodeURIComponent(stream)}`);
    expect(events.status).toBe(200);
    const put = events.body.events.find((e: any) => e.type === 'AgentRecordPut');
    expect(put).toMatchObject({
      revision: expect.any(Number),
      position: expect.any(Number),
      schema_version: expect.any(Number),
      recorded_at: expect.any(Number),
    });
    expect(put.metadata).toMatchObject({ tenant: 'acme' });
    expect(put.data.value).toEqual({ $sealed: { key: expect.any(String), ciphertext_bytes: expect.any(Number) } });
    expect(events.text).not.toContain(SECRET);
    expect((await call(ADMIN_KEY, `/v1/events/streams/${encodeURIComponent(stream)}?from=1&limit=1`)).body.events.map((e: any) => e.revision)).toEqual([1]);
    expect((await call(ADMIN_KEY, '/v1/events/streams/no-such-stream')).status).toBe(404);
    for (const bad of ['limit=0', 'limit=1e2', 'limit=501']) expect((await call(ADMIN_KEY, `/v1/events/streams?${bad}`)).status).toBe(400);
    for (const key of [auditorKey, 'wrong', null]) {
      expect((await call(key, '/v1/events/streams')).status).toBe(401);
      expect((await call(key, `/v1/events/streams/${encodeURIComponent(stream)}`)).status).toBe(401);
    }
  });
});
