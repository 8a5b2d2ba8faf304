import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';

/** Paging an agent query always makes progress and reaches the end (SPEC §12 `after`, §13 the stub floor). */
let svc: TestService;
let key: string;
const IDS = ['q1', 'q2', 'q3', 'q4', 'q5'];

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  key = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'pager' })).body.key;
  expect((await call('PUT', '/v1/agent/collections', { collections: { questions: { fields: ['status'] } } })).status).toBe(200);
  for (const id of IDS)
    expect(
      (await call('PUT', `/v1/agent/records/questions/${id}`, { value: { status: 'open', text: `Question ${id} about the delivery date. `.repeat(5) } }))
        .status,
    ).toBe(200);
});
afterAll(async () => svc?.stop());

describe('paging agent queries', () => {
  it("after given the previous page's whole last entry reads on (only createdAt and id are read)", async () => {
    const seen: string[] = [];
    let after: unknown;
    for (let i = 0; i < 10; i++) {
      const page = await call('POST', '/v1/agent/records/questions/query', { where: { status: 'open' }, limit: 2, ...(after ? { after } : {}) });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      if (page.body.entries.length === 0) break;
      seen.push(...page.body.entries.map((e: any) => e.id));
      after = page.body.entries.at(-1);
      expect(after).toMatchObject({ id: expect.any(String), value: expect.any(Object), createdAt: expect.any(Number), updatedAt: expect.any(Number) });
    }
    expect(seen).toEqual(IDS);
  });

  it('a fitted query with a budget too small for one record answers its stub and a next past it, until no next', async () => {
    const seen: string[] = [];
    let after: unknown;
    let pages = 0;
    for (; pages < 10; pages++) {
      const page = await call('POST', '/v1/agent/records/questions/query', { budget: 20, ...(after ? { after } : {}) });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.entries.length).toBeGreaterThanOrEqual(1);
      expect(page.body.fit.view).toBe('stub');
      expect(page.body.fit.omitted).toContain('get it by its id');
      seen.push(...page.body.entries.map((e: any) => e.id));
      if (page.body.next === null) {
        expect(page.body.more).toBe(false);
        break;
      }
      expect(page.body.more).toBe(true);
      expect(page.body.next).toEqual({ createdAt: page.body.entries.at(-1).createdAt, id: page.body.entries.at(-1).id });
      after = page.body.next;
    }
    expect(seen).toEqual(IDS);
    expect(pages).toBe(IDS.length - 1);
  });

  it('a fitted page cut by its limit, not its budget, still gives a next; the last page none', async () => {
    const first = await call('POST', '/v1/agent/records/questions/query', { budget: 5000, limit: 3 });
    expect(first.body.entries.map((e: any) => e.id)).toEqual(['q1', 'q2', 'q3']);
    expect(first.body).toMatchObject({ more: true, next: { id: 'q3' } });
    const rest = await call('POST', '/v1/agent/records/questions/query', { budget: 5000, limit: 3, after: first.body.next });
    expect(rest.body.entries.map((e: any) => e.id)).toEqual(['q4', 'q5']);
    expect(rest.body).toMatchObject({ more: false, next: null });
  });
});
