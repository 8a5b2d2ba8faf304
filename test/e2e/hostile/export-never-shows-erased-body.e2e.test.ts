import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * an erasure on A shreds the subject's keys, but B still holds the record's data
 * key in its in-memory cache. Reads check the key row (`key_live`); export opens bodies through
 * the sealer alone, so an export on B as of a position before the erasure (or a versions export)
 * shows the erased body — "versions whose keys were shredded absent" holds only on A.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }] })));
afterAll(() => stopPair({ a, b }));

const SECRET = 'erased-secret-body';

describe('an export on the instance that still caches an erased subject’s key', () => {
  it('does not show the erased body (export as of a position before the erasure)', async () => {
    const c = await caller(b, 'acme', { purpose: 'routine:r', data_subject: 'user:ex1' });
    expect((await c.rec({ op: 'put', scope: 'agent:scribe', record_key: 'ex-1', body: { secret: SECRET }, expect: 0 })).status).toBe(200);
    // B opened the body once, so it caches the key (as any read on B would).
    const read = await c.rec({ op: 'get', scope: 'agent:scribe', record_key: 'ex-1' });
    expect(read.body.record?.body?.secret).toBe(SECRET);
    const before = await a.lastPosition();

    const erased = await a.admin('POST', '/v1/tenants/acme/erasures', { data_subject: 'user:ex1' });
    expect(erased.status, JSON.stringify(erased.body)).toBeLessThan(300);
    expect(erased.body.receipt?.complete ?? erased.body.complete, JSON.stringify(erased.body)).toBe(true);
    const { rows } = await a.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_data_keys WHERE owner = 'subject:user:ex1'`);
    expect(rows[0]!.n).toBe(0);

    const onA = await a.admin('GET', `/v1/tenants/acme/export?position=${before}`);
    expect(onA.status).toBe(200);
    expect.soft(String(onA.body), 'export on A').not.toContain(SECRET);
    const onB = await b.admin('GET', `/v1/tenants/acme/export?position=${before}`);
    expect(onB.status).toBe(200);
    expect(String(onB.body), 'export on B').not.toContain(SECRET);
  });
});
