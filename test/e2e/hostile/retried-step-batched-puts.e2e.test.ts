import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * A step retried while the original call, warm on both instances, is putting a burst into one
 * scope: both calls share the idempotency key, so their n-th requests share a request key. The
 * puts queued on that scope are decided together, on the state the ones before them left (a
 * retry's request may meet its original's write in the same batch, before that write
 * committed): each request key writes at most once, a retry answers the write its key made,
 * and every answer agrees with the log.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

const retry = async (svc: TestService, c: Caller): Promise<Caller> => {
  const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls`, { function: 'save', step: 1 });
  expect(minted.status).toBe(201);
  const ticket: string = minted.body._meta['oz0/records'].ticket;
  expect(minted.body._meta['oz0/idempotency_key']).toBe(c.idempotencyKey);
  return { ticket, call: minted.body.call.id, job: c.job, idempotencyKey: c.idempotencyKey, rec: (body) => records(svc, ticket, body) };
};

/** Versions written per request key of this job's records (the request keys model is written with each append). */
const writesByRequest = async (prefix: string) =>
  (
    await a.pool.query<{ request_key: string; n: number }>(
      `SELECT e.data->>'request_key' AS request_key, count(*)::int AS n FROM custodian_events e
        WHERE e.type = 'RecordVersionWritten' AND starts_with(e.data->>'key', $1) GROUP BY 1`,
      [prefix],
    )
  ).rows;

describe('a step retried on B while its original call bursts puts into one scope from A and B', () => {
  it('writes each request key at most once, and a retry answers the write its key made', async () => {
    let answeredFirstWrite = 0;
    for (let round = 0; round < 4; round++) {
      const scope = 'project:retried';
      const orig = await caller(a, 'acme', { step: 1 });
      // Original: two requests on A, two on B (indexes 1–4); its burst takes indexes 5 on.
      await warm(a, orig);
      await warm(b, orig);
      const burst = (c: Caller, who: string) =>
        Array.from({ length: 16 }, (_, i) =>
          records(i % 2 ? b : a, c.ticket, { op: 'put', scope, record_key: `rs${round}-${who}-${i}`, body: { who, i }, expect: 0 }),
        );
      const first = burst(orig, 'orig');
      const again = await retry(b, orig);
      // The retry's own four warm-up requests take indexes 1–4, so its burst meets the original's request keys.
      await warm(a, again);
      await warm(b, again);
      const second = burst(again, 'retry');
      const [xs, ys] = await Promise.all([Promise.all(first), Promise.all(second)]);
      expect([...xs, ...ys].filter((r) => r.status >= 500)).toEqual([]);
      expect((await writesByRequest(`rs${round}-`)).filter((w) => w.n > 1)).toEqual([]);
      // A retry's answer names a version the log holds, at the key it names, readable with the body written there.
      const reader = await caller(a, 'acme', { step: 2 });
      for (const y of ys) {
        expect(y.status, JSON.stringify(y.body)).toBe(200);
        const got = await reader.rec({ op: 'get', scope: y.body.scope, record_key: y.body.key, version: y.body.version });
        expect(got.status).toBe(200);
        expect(got.body.record?.version).toBe(y.body.version);
        if (String(y.body.key).includes('-orig-')) answeredFirstWrite++;
      }
      for (const x of xs) expect(x.status === 200 || x.body.error === 'ticket', JSON.stringify(x.body)).toBe(true);
    }
    // Some retries met their original's write (the request keys did collide).
    expect(answeredFirstWrite).toBeGreaterThan(0);
  }, 180_000);
});
