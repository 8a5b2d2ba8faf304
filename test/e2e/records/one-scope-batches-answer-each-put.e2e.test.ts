import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Puts queued on one scope are decided in order and appended as one chain. Driven from warm
 * tickets (admitted from the call-context cache, their guards committed with their appends)
 * on two instances at once, so batches meet guards that fail, new-record key rows that
 * another instance made first, and conflicts from the other instance mid-chain: every put
 * must still get the answer the log shows, every 200 must read back, and every call counts
 * exactly its 64 requests.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => {
  ({ a, b } = await startPair({ caps: { records: 1_000, bytes: 100_000_000 } }));
  await a.admin('POST', '/v1/tenants', { id: 'capped', settings: { caps: { records: 20, bytes: 100_000_000 } } });
  await a.admin('POST', '/v1/tenants/capped/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(() => stopPair({ a, b }));

const on = (i: number) => (i % 2 === 0 ? a : b);

/** Warm on both instances (4 requests of the call), so each admits its next requests from its cache. */
const warmCallers = async (tenant: string, n: number) => {
  const cs: Caller[] = [];
  for (let i = 0; i < n; i++) {
    const c = await caller(a, tenant, { input: 'batched' });
    await warm(a, c);
    await warm(b, c);
    cs.push(c);
  }
  return cs;
};

/** The versions of a record's bodies in the log that name a key id with no key row (unreadable everywhere). */
const bodiesWithoutKey = async (tenant: string, scope: string) =>
  (
    await a.pool.query<{ key: string; version: string }>(
      `SELECT e.data->>'key' AS key, e.data->>'version' AS version FROM custodian_events e
        WHERE e.type = 'RecordVersionWritten' AND e.data->>'tenant' = $1 AND e.data->>'scope' = $2
          AND NOT EXISTS (SELECT 1 FROM custodian_data_keys d WHERE d.key_id::text = e.data->'body'->>'k')`,
      [tenant, scope],
    )
  ).rows;

/** Readers on one instance: a fresh call once one has made 60 requests. */
const readers = (svc: TestService, tenant: string) => {
  let current: Caller | null = null;
  let used = 0;
  return async (body: unknown) => {
    if (!current || used >= 60) [current, used] = [await caller(svc, tenant, { input: 'batched' }), 0];
    used++;
    return current.rec(body);
  };
};

/** Every version of a record as a reader sees it (its body, opened), by version. */
const versions = async (read: ReturnType<typeof readers>, scope: string, key: string) => {
  const history = await read({ op: 'history', scope, record_key: key });
  expect(history.status).toBe(200);
  const out = new Map<number, unknown>();
  for (const { version } of history.body.records as { version: number }[]) {
    const got = await read({ op: 'get', scope, record_key: key, version });
    expect(got.status).toBe(200);
    out.set(version, got.body.record.body);
  }
  return out;
};

describe('puts batched on one scope from warm tickets on two instances', () => {
  it('answers each call exactly 64 counted requests, and every put answered 200 reads back with its body and key row, while a call ends mid-burst', async () => {
    const cs = await warmCallers('acme', 6);
    const scope = 'project:burst';
    const ended = cs[0]!;
    const sent: { c: number; j: number; key: string; body: unknown; answer: Promise<{ status: number; body: any }> }[] = [];
    for (const [ci, c] of cs.entries())
      for (let j = 0; j < 64; j++) {
        // Every third put races for one of a few shared new records (a new key row on both instances at once).
        const key = j % 3 === 0 ? `shared-${j % 5}` : `own-${ci}-${j}`;
        const body = { ci, j };
        sent.push({ c: ci, j, key, body, answer: records(on(ci + j), c.ticket, { op: 'put', scope, record_key: key, body, expect: 0 }) });
      }
    // The call ends on B while its puts are in flight: its guards on A fail, its puts there are admitted again in full.
    const end = (async () => {
      await new Promise((r) => setImmediate(r));
      expect((await b.admin('POST', `/v1/tenants/acme/jobs/${ended.job}/calls/${ended.call}/end`)).status).toBe(200);
    })();
    const answers = await Promise.all(sent.map((s) => s.answer));
    await end;
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    for (const [ci] of cs.entries()) {
      const mine = answers.filter((_, i) => sent[i]!.c === ci);
      const counted = mine.filter((r) => r.body.error !== 'requests').length;
      // Four warm-up reads were counted before the burst.
      // The ended call's requests after its end are refused as its ticket, and count no more.
      if (ci === 0) expect(mine.filter((r) => r.body.error !== 'requests' && r.body.error !== 'ticket').length).toBeLessThanOrEqual(60);
      else expect(counted, `call ${ci}`).toBe(60);
    }
    // Each record was answered 200 at most once at version 1, and every 200 reads back with its body.
    const won = sent.filter((_, i) => answers[i]!.status === 200);
    expect(answers.filter((r) => r.status === 200 && r.body.version !== 1)).toEqual([]);
    const byKey = new Map<string, typeof won>();
    for (const s of won) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s]);
    for (const [key, ws] of byKey) expect(ws, key).toHaveLength(1);
    const [readA, readB] = [readers(a, 'acme'), readers(b, 'acme')];
    for (const [key, [w]] of byKey) expect((await versions(w!.j % 2 ? readB : readA, scope, key)).get(1), key).toEqual(w!.body);
    // A put refused stale names the version the winner wrote.
    for (const [i, s] of sent.entries()) if (answers[i]!.body.error === 'stale') expect(byKey.has(s.key), s.key).toBe(true);
    expect(await bodiesWithoutKey('acme', scope)).toEqual([]);
  }, 180_000);

  it("writes a record's versions put back to back in one burst in order, each answered 200 at the version it reads back at", async () => {
    const [onA, onB] = await warmCallers('acme', 2);
    const scope = 'project:chain';
    const key = 'stepped';
    const sent = Array.from({ length: 24 }, (_, i) => ({ c: i % 2 === 0 ? onA! : onB!, expect: Math.floor(i / 2), body: { i } }));
    const answers = await Promise.all(sent.map((s, i) => records(on(i), s.c.ticket, { op: 'put', scope, record_key: key, body: s.body, expect: s.expect })));
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    const kept = await versions(readers(a, 'acme'), scope, key);
    const won = sent.filter((_, i) => answers[i]!.status === 200);
    expect(won.length).toBeGreaterThan(0);
    // Versions 1..n, one put each, each 200 at expect + 1 reading back with its own body.
    expect([...kept.keys()].sort((x, y) => x - y)).toEqual(won.map((s) => s.expect + 1).sort((x, y) => x - y));
    for (const [i, s] of sent.entries()) {
      const r = answers[i]!;
      if (r.status === 200) {
        expect(r.body.version).toBe(s.expect + 1);
        expect(kept.get(s.expect + 1)).toEqual(s.body);
      } else expect(r.body.error, JSON.stringify(r.body)).toBe('stale');
    }
    expect(await bodiesWithoutKey('acme', scope)).toEqual([]);
  });

  it('answers exactly one of many puts with one dedupe text 200, and every other duplicate naming that record', async () => {
    const cs = await warmCallers('acme', 4);
    const scope = 'project:dedupe-batch';
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        records(on(i), cs[i % 4]!.ticket, { op: 'put', scope, record_key: `d-${i}`, body: { i }, expect: 0, dedupe: 'the one text' }),
      ),
    );
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    const won = answers.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 200);
    expect(won).toHaveLength(1);
    const dup = answers.filter((r) => r.body.error === 'duplicate');
    expect(dup).toHaveLength(39);
    expect(dup.every((r) => r.body.key === `d-${won[0]!.i}`)).toBe(true);
    expect((await versions(readers(b, 'acme'), scope, `d-${won[0]!.i}`)).get(1)).toEqual({ i: won[0]!.i });
  });

  it('writes exactly the cap of new records raced into one scope, and refuses the rest full only once it is full', async () => {
    const cs = await warmCallers('capped', 4);
    const scope = 'project:cap-batch';
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => records(on(i), cs[i % 4]!.ticket, { op: 'put', scope, record_key: `n-${i}`, body: { i }, expect: 0 })),
    );
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(20);
    expect(answers.filter((r) => r.body.error === 'full')).toHaveLength(30);
    const reader = await caller(b, 'capped', { input: 'batched' });
    const listed = await reader.rec({ op: 'list', list: { scopes: [scope], limit: 200 } });
    expect(listed.body.records).toHaveLength(20);
  });
});
