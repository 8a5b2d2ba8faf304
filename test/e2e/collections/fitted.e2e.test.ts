import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';

/** SPEC §13 on the agent API: `view` / `budget` / `query` on query and export answer fitted. */
let service: TestService;
let key: string;
beforeAll(async () => {
  service = await startTestService();
  await service.admin('POST', '/v1/tenants', { id: 'acme' });
  key = ((await service.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'fitter' })).body as { key: string }).key;
  await call('PUT', '/v1/agent/collections', { collections: { notes: { fields: ['kind'] } } });
  for (let i = 0; i < 12; i++)
    await call('PUT', `/v1/agent/records/notes/n${String(i).padStart(2, '0')}`, {
      value: { kind: 'note', text: `Note ${i} is about a bike. ${'More words follow here. '.repeat(30)}`, n: i },
    });
}, 120_000);
afterAll(async () => service?.stop());

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON Lines: the caller reads text.
  }
  return { status: res.status, text, body: json };
};
const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

describe('fitted agent answers', () => {
  it('without view, budget or query, query and export answer as before', async () => {
    const q = await call('POST', '/v1/agent/records/notes/query', { where: { kind: 'note' } });
    expect(Object.keys(q.body)).toEqual(['entries']);
    expect(q.body.entries).toHaveLength(12);
    const exported = lines((await call('GET', '/v1/agent/export')).text);
    expect(exported).toHaveLength(12);
    expect(exported.every((l) => 'collection' in l && !('fit' in l))).toBe(true);
  });

  it('the export without fitting is streamed a record at a time (chunked, no length), oldest first, and audited', async () => {
    const res = await fetch(`${service.url}/v1/agent/export`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    const ids = lines(await res.text()).map((l) => l.id);
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}`));
    const reads = await service.store.readStream('agentreads:acme:fitter');
    expect(reads.at(-1)!.data).toMatchObject({ op: 'export', records: ids.map((id) => ({ collection: 'notes', id })) });
  });

  it('a query with a budget keeps whole records, says more with a next that continues without skipping or repeating', async () => {
    const seen: string[] = [];
    let after: unknown;
    for (let round = 0; round < 12; round++) {
      const r = await call('POST', '/v1/agent/records/notes/query', { budget: 600, ...(after ? { after } : {}) });
      expect(r.status).toBe(200);
      expect(r.body.fit).toMatchObject({ view: 'full', budget: 600, size: expect.any(Number), tokens: expect.any(Number), omitted: expect.any(String) });
      expect(r.body.fit.tokens).toBeLessThanOrEqual(600);
      expect(r.body.entries.length).toBeGreaterThan(0);
      for (const e of r.body.entries) expect(e.value.text).toMatch(/^Note \d+ is about a bike\./);
      seen.push(...r.body.entries.map((e: { id: string }) => e.id));
      if (!r.body.more) {
        expect(r.body.next).toBeNull();
        break;
      }
      expect(r.body.next).toEqual({ createdAt: r.body.entries.at(-1).createdAt, id: r.body.entries.at(-1).id });
      after = r.body.next;
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}`));
  });

  it('the read audit of a fitted query names only the ids it returned', async () => {
    const r = await call('POST', '/v1/agent/records/notes/query', { budget: 600 });
    expect(r.body.more).toBe(true);
    const reads = await service.store.readStream('agentreads:acme:fitter');
    expect((reads.at(-1)!.data as { records: { id: string }[] }).records.map((x) => x.id)).toEqual(r.body.entries.map((e: { id: string }) => e.id));
  });

  it('view summary and section shape each value; a bad view is a 400 that writes nothing', async () => {
    const summary = await call('POST', '/v1/agent/records/notes/query', { view: 'summary', limit: 2 });
    expect(summary.body.entries[0].value).toEqual({ kind: 'note', text: 'Note 0 is about a bike.', n: 0 });
    expect(summary.body.fit.view).toBe('summary');
    const section = await call('POST', '/v1/agent/records/notes/query', { query: 'n', limit: 3 });
    expect(section.body.entries.map((e: { value: unknown }) => e.value)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    const before = await service.lastPosition();
    expect((await call('POST', '/v1/agent/records/notes/query', { view: 'everything' })).status).toBe(400);
    expect((await call('GET', '/v1/agent/export?budget=-1')).status).toBe(400);
    expect(await service.lastPosition()).toBe(before);
  });

  it('an export with a budget ends with a fit line; its next read as ?after= continues to the end', async () => {
    const seen: string[] = [];
    let after = '';
    for (let round = 0; round < 12; round++) {
      const r = await call('GET', `/v1/agent/export?budget=700${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      expect(r.status).toBe(200);
      const all = lines(r.text);
      const last = all.at(-1);
      expect(last.fit).toMatchObject({ view: 'full', budget: 700 });
      expect(last.fit.tokens).toBeLessThanOrEqual(700);
      seen.push(...all.slice(0, -1).map((l) => l.id));
      if (!last.more) break;
      expect(last.next).toBe(`${all.at(-2).createdAt}:${all.at(-2).id}`);
      after = last.next;
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}`));
  });
});
