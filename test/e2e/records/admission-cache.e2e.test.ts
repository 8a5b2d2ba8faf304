import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * The call-context cache (commands/records-admission-cache.ts): a warm ticket's requests run
 * no admission statement, and their guard, committed with their first write, keeps the count
 * exact and the fence's guarantees across two instances sharing one database.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

const countOf = async (call: string) =>
  Number((await a.pool.query<{ n: number }>('SELECT n FROM custodian_call_requests WHERE call = $1', [call])).rows[0]?.n ?? 0);

describe('the call-context cache', () => {
  it('one ticket used through two warm instances in turn: every request counted once, the 65th refused on either', async () => {
    const c = await caller(a, 'acme');
    const statuses: number[] = [];
    for (let i = 1; i <= 64; i++) {
      const svc = i % 3 === 0 ? b : a;
      const op = i % 2 === 0 ? { op: 'put', scope: 'project:cache', record_key: `k${i}`, body: { i }, expect: 0 } : { op: 'list' };
      statuses.push((await records(svc, c.ticket, op)).status);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await countOf(c.call)).toBe(64);
    expect(await records(a, c.ticket, { op: 'list' })).toMatchObject({ status: 429, body: { error: 'requests' } });
    expect(await records(b, c.ticket, { op: 'list' })).toMatchObject({ status: 429, body: { error: 'requests' } });
    expect(await countOf(c.call)).toBe(66);
  });

  it('a refused put on a warm ticket counts, and writes nothing', async () => {
    const c = await caller(a, 'acme');
    expect((await c.rec({ op: 'put', scope: 'project:refused', record_key: 'r', body: { v: 1 }, expect: 0 })).status).toBe(200);
    expect(await c.rec({ op: 'put', scope: 'project:refused', record_key: 'r', body: { v: 2 }, expect: 0 })).toMatchObject({
      status: 409,
      body: { error: 'stale' },
    });
    expect(await c.rec({ op: 'put', scope: 'project:refused' })).toMatchObject({ status: 400, body: { error: 'invalid' } });
    expect(await countOf(c.call)).toBe(3);
    const { rows } = await a.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM custodian_events WHERE type = 'RecordVersionWritten' AND data->>'scope' = 'project:refused'",
    );
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it('a record whose data key another instance made: the warm put finds that key, and the body reads back', async () => {
    const c = await caller(a, 'acme');
    for (let i = 0; i < 2; i++) expect((await c.rec({ op: 'list' })).status).toBe(200);
    // B writes the record first (its key made by B); A has never seen the record, so its put makes a key that conflicts.
    const other = await caller(b, 'acme');
    expect((await records(b, other.ticket, { op: 'put', scope: 'project:keys', record_key: 'shared', body: { by: 'b' }, expect: 0 })).status).toBe(200);
    expect(await c.rec({ op: 'put', scope: 'project:keys', record_key: 'shared', body: { by: 'a' }, expect: 1 })).toMatchObject({
      status: 200,
      body: { version: 2 },
    });
    const { rows } = await a.pool.query("SELECT 1 FROM custodian_data_keys WHERE scope = 'project:keys' AND record_key = 'shared'");
    expect(rows).toHaveLength(1);
    expect(await records(b, other.ticket, { op: 'get', scope: 'project:keys', record_key: 'shared' })).toMatchObject({
      status: 200,
      body: { record: { version: 2, body: { by: 'a' } } },
    });
  });

  it('a block edited in place under a warm ticket: its next request is refused, and nothing is written', async () => {
    const c = await caller(a, 'acme');
    for (let i = 0; i < 2; i++) expect((await c.rec({ op: 'list' })).status).toBe(200);
    const edited = await a.pool.query(
      `UPDATE custodian_events SET data = data || '{"expires_ms": 1}'::jsonb WHERE stream = $1 AND type = 'EnvelopeBlockAppended'`,
      [`job:acme:${c.job}`],
    );
    expect(edited.rowCount).toBeGreaterThan(0);
    const put = await c.rec({ op: 'put', scope: 'project:edited', record_key: 'r', body: {}, expect: 0 });
    expect(put.status).toBe(403);
    const { rows } = await a.pool.query<{ n: string }>("SELECT count(*) AS n FROM custodian_events WHERE data->>'scope' = 'project:edited'");
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('a retried step on a warm ticket answers the first write of its request key, even under another key and scope', async () => {
    const first = await caller(a, 'acme', { step: 2 });
    expect((await first.rec({ op: 'list' })).status).toBe(200);
    // The scope the retry writes to is warm in this instance: only the guard can find request 3's first write.
    expect((await first.rec({ op: 'put', scope: 'project:elsewhere', record_key: 'zero', body: {}, expect: 0 })).status).toBe(200);
    expect((await first.rec({ op: 'put', scope: 'project:retry', record_key: 'one', body: {}, expect: 0 })).body).toMatchObject({ version: 1 });
    // The step retried: a new ticket, the same idempotency key, its count from 1 again; warmed by a list.
    const minted = await a.admin('POST', `/v1/tenants/acme/jobs/${first.job}/calls`, { function: 'save', step: 2 });
    const retry = minted.body._meta['oz0/records'].ticket as string;
    const retryCall = minted.body.call.id as string;
    // A ticket's first full admission teaches the fence its blocks; from its second on, it is cached.
    for (let i = 0; i < 2; i++) expect((await records(a, retry, { op: 'list' })).status).toBe(200);
    expect((await records(a, retry, { op: 'put', scope: 'project:elsewhere', record_key: 'two', body: {}, expect: 0 })).body).toMatchObject({
      scope: 'project:retry',
      key: 'one',
      version: 1,
    });
    expect(await countOf(retryCall)).toBe(3);
    const { rows } = await a.pool.query<{ n: string }>("SELECT count(*) AS n FROM custodian_events WHERE data->>'key' = 'two'");
    expect(Number(rows[0]!.n)).toBe(0);
  });
});
