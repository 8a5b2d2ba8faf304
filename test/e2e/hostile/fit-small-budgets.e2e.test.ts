import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red team 2, fitted answers (SPEC §13): a budget is any whole number 0–50,000, and "the stub is
 * the floor"; a list cut by a budget "sets more: true and a next cursor that continues after the
 * last record returned". Small budgets break both: the fitted agent export answers 500, and a
 * fitted query or list that returns nothing says more but gives no cursor that moves on.
 */
let svc: TestService;
let agentKey = '';
let writer: Caller;
const asAgent = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${agentKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, text };
};

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  agentKey = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'market' })).body.key;
  expect((await asAgent('PUT', '/v1/agent/collections', { collections: { q: { fields: ['status'] } } })).status).toBe(200);
  for (let i = 0; i < 3; i++)
    expect((await asAgent('PUT', `/v1/agent/records/q/r${i}`, { value: { status: 'open', text: 'x'.repeat(2000) } })).status).toBe(200);
  writer = await caller(svc, 'acme');
  for (let i = 0; i < 3; i++)
    expect((await writer.rec({ op: 'put', scope: 'tenant', record_key: `k${i}`, body: { text: 'y'.repeat(2000) }, expect: 0 })).status).toBe(200);
});
afterAll(async () => svc?.stop());

describe('a small budget on a fitted export', () => {
  it.each(['budget=0', 'budget=3', 'view=stub&budget=0', 'view=full&budget=10'])('GET /v1/agent/export?%s is answered, not 500', async (q) => {
    const res = await asAgent('GET', `/v1/agent/export?${q}`);
    expect(res.status, res.text).toBeLessThan(500);
  });

  it("the admin's GET /v1/tenants/acme/agents/market/records/export?budget=3 is answered, not 500", async () => {
    const res = await svc.admin('GET', '/v1/tenants/acme/agents/market/records/export?budget=3');
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
  });
});

describe('a fitted page that returns nothing', () => {
  it('an agent query with budget 0 that says more gives a next that moves on', async () => {
    const res = await asAgent('POST', '/v1/agent/records/q/query', { budget: 0 });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text) as { entries: unknown[]; more: boolean; next: unknown };
    // entries [] with more: true and next: null sends a paging caller back to the start, forever.
    expect(body.more && body.entries.length === 0 && body.next === null).toBe(false);
  });

  it('a records list with budget 0 that says more gives a next that moves on', async () => {
    const res = await writer.rec({ op: 'list', budget: 0 });
    expect(res.status).toBe(200);
    expect(res.body.more && res.body.records.length === 0 && !res.body.next, JSON.stringify(res.body)).toBe(false);
  });
});
