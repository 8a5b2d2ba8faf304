import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over the call-context cache: tenant settings come from a read model the
 * tenants projection fills after the log. A full admission that lands between a PATCH's
 * commit and that projection reads the old settings at the new tenant head, and the cache
 * then keeps those old settings with a guard that holds, for up to 1 s after the PATCH answered.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

const get = (svc: TestService, c: Caller) => records(svc, c.ticket, { op: 'get', scope: 'project:warm', record_key: 'none' });

describe('a cap lowered on B while a ticket is warm on A', () => {
  it('refuses the next put on A once the PATCH answered, as a cold call is refused', async () => {
    const breaches: string[] = [];
    // One record already there: a cap of 1 refuses every new one (tenant, plugin or scope).
    const seed = await caller(a, 'acme');
    expect((await seed.rec({ op: 'put', scope: 'project:lag', record_key: 'seed', body: {}, expect: 0 })).status).toBe(200);
    for (let i = 0; i < 16; i++) {
      expect((await a.admin('PATCH', '/v1/tenants/acme', { caps: { records: 5000, bytes: 1_000_000 } })).status).toBe(200);
      const c = await caller(a, 'acme');
      for (let w = 0; w < 2; w++) expect((await get(a, c)).status).toBe(200);
      const cold = await a.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls`, { function: 'save' });
      const coldTicket: string = cold.body._meta['oz0/records'].ticket;
      let done = false;
      const patch = b.admin('PATCH', '/v1/tenants/acme', { caps: { records: 1, bytes: 1_000_000 } }).finally(() => (done = true));
      // Requests on A while the PATCH commits: one of them may be admitted in full in the projection's lag.
      // Within the call's 64 requests (2 before, the put after): under load a PATCH can outlast 61 of them.
      for (let n = 0; !done && n < 56; n++) expect((await get(a, c)).status).toBe(200);
      expect((await patch).status).toBe(200);
      // The baseline first: a cold call of the same job on the same instance A (a full admission) sees the cap ...
      const cold1 = await records(a, coldTicket, { op: 'put', scope: 'project:lag', record_key: `cold${i}`, body: {}, expect: 0 });
      expect(cold1.body).toMatchObject({ error: 'full' });
      // ... then the warm ticket, after it.
      const onA = await records(a, c.ticket, { op: 'put', scope: 'project:lag', record_key: `a${i}`, body: {}, expect: 0 });
      if (onA.status === 200)
        breaches.push(`iteration ${i}: a put on the warm ticket wrote past the cap after the PATCH answered and a cold call on A was refused`);
    }
    expect(breaches).toEqual([]);
  });
});
