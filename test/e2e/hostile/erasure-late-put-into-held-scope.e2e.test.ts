import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * the erasure's late sweep (`removeCandidates(false)` after `shredSubject`) leaves a
 * held record in place "because the erasure was complete when it was judged". A put of the
 * subject's into a held scope that commits while the erasure runs (after its first listing,
 * before the subject's key goes) is sealed under the subject's key: the key goes, the sweep
 * skips the record as held, and the receipt says `complete` with nothing deferred. The put
 * answered 200, yet its record is neither readable nor removed, and the signed receipt lies.
 */
const SCOPES = Array.from({ length: 40 }, (_, i) => `project:p${String(i).padStart(2, '0')}`);
const HELD = 'project:held';
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }], person_shared_scopes: [...SCOPES, HELD] })));
afterAll(() => stopPair({ a, b }));

describe('a put of the subject’s into a held scope while the subject is erased', () => {
  it('is readable, or removed, or the erasure is not complete', async () => {
    const subject = 'user:late-held';
    expect((await a.admin('POST', '/v1/tenants/acme/holds', { selector: { scope: HELD }, reason: 'litigation' })).status).toBeLessThan(300);
    const c = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
    for (const scope of SCOPES) expect((await c.rec({ op: 'put', scope, record_key: 'r', body: { scope }, expect: 0 })).status).toBe(200);
    const late = await caller(b, 'acme', { purpose: 'routine:r', data_subject: subject });

    const erasing = a.admin('POST', '/v1/tenants/acme/erasures', { data_subject: subject });
    // The first scope's removal is a fact: the erasure has listed the subject's records.
    for (;;) {
      const { rows } = await a.pool.query(`SELECT 1 FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'scope' = $1`, [SCOPES[0]]);
      if (rows.length > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    const put = await late.rec({ op: 'put', scope: HELD, record_key: 'late', body: { late: true }, expect: 0 });
    const erased = await erasing;
    expect(erased.status, JSON.stringify(erased.body)).toBeLessThan(300);
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const { rows: removed } = await a.pool.query(`SELECT 1 FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'scope' = $1`, [HELD]);
    const reader = await caller(b, 'acme', { purpose: 'routine:r', data_subject: subject });
    const got = await reader.rec({ op: 'get', scope: HELD, record_key: 'late' });
    expect(got.status).toBeLessThan(500);
    const readable = got.body.record?.body?.late === true;
    const complete = erased.body.receipt?.complete ?? erased.body.complete;
    expect(
      { readable, removed: removed.length > 0, complete },
      `a put answered 200 is readable, removed, or the erasure is pending; receipt ${JSON.stringify(erased.body.receipt ?? erased.body)}`,
    ).not.toEqual({ readable: false, removed: false, complete: true });
  });
});
