import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over the guarded append (issue 14): a step retried while the original call is
 * still in flight (a client's timeout retry). Both calls share the idempotency key, so their
 * n-th requests share a request key (SPEC checks, row 5): whichever lands second must answer
 * the first write, not write again. The guard checks "request key unused" against
 * rm_request_keys as its statement sees it, with no lock, so two transactions on two
 * instances can both find it unused.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

/** Mints the step again on `svc`: a new ticket with the same idempotency key (the original call ends). */
const retry = async (svc: TestService, c: Caller): Promise<Caller> => {
  const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls`, { function: 'save', step: 1 });
  expect(minted.status).toBe(201);
  const ticket: string = minted.body._meta['oz0/records'].ticket;
  expect(minted.body._meta['oz0/idempotency_key']).toBe(c.idempotencyKey);
  return { ticket, call: minted.body.call.id, job: c.job, idempotencyKey: c.idempotencyKey, rec: (body) => records(svc, ticket, body) };
};

const written = async (prefix: string) =>
  (
    await a.pool.query<{ scope: string; key: string }>(
      `SELECT scope, key FROM rm_record_versions WHERE tenant = 'acme' AND starts_with(key, $1) ORDER BY scope, key`,
      [prefix],
    )
  ).rows;

describe('a step retried on B while the original call, warm on A, puts its third request', () => {
  const rounds: { x: { status: number; body: any }; y: { status: number; body: any }; written: number }[] = [];
  beforeAll(async () => {
    for (let round = 0; round < 16; round++) {
      const orig = await caller(a, 'acme', { step: 1 });
      await warm(a, orig);
      const scope = round % 2 ? 'project:same' : 'project:orig';
      const [x, y] = await Promise.all([
        records(a, orig.ticket, { op: 'put', scope, record_key: `r${round}-orig`, body: { round }, expect: 0 }),
        (async () => {
          const again = await retry(b, orig);
          await warm(b, again);
          return records(b, again.ticket, { op: 'put', scope: 'project:same', record_key: `r${round}-retry`, body: { round }, expect: 0 });
        })(),
      ]);
      rounds.push({ x, y, written: (await written(`r${round}-`)).length });
    }
  });

  it('writes that request key at most once: the original is refused once the retry is minted, or the retry answers its write', () => {
    for (const { x, y, written } of rounds) {
      expect(y.status).toBe(200);
      expect(written).toBe(1);
      if (x.status === 200) expect(y.body).toEqual(x.body);
      else expect(x.status).toBeLessThan(500);
    }
  });

  it('refuses the original as a dead ticket (401 ticket), never as revoked: nothing was revoked and the job runs on', () => {
    const refused = rounds.filter(({ x }) => x.status !== 200).map(({ x }) => ({ status: x.status, error: x.body.error }));
    expect(refused.filter((r) => r.error !== 'ticket')).toEqual([]);
  });

  it('refuses the original ticket on A once the retry is minted on B (its cached admission is not trusted)', async () => {
    const orig = await caller(a, 'acme', { step: 1 });
    await warm(a, orig);
    await retry(b, orig);
    const put = await records(a, orig.ticket, { op: 'put', scope: 'project:late', record_key: 'late', body: {}, expect: 0 });
    expect(put).toMatchObject({ status: 401, body: { error: 'ticket' } });
    expect(await written('late')).toEqual([]);
  });
});
