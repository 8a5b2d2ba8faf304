import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * an erasure judges holds once, from the tenant state its `ErasureRequested` was
 * decided on (`commands/compliance.ts` `runErasure`), then removes scope by scope. A legal hold
 * placed on B (answered 201) after the request but before the erasure reaches the held record
 * does not stop it: the held record is removed. README: "While a hold covers a record nothing
 * removes it". The test places the hold as soon as the request is in the log, and judges by log
 * positions only: a record removed after its hold was placed is the hole.
 */
const SCOPES = Array.from({ length: 40 }, (_, i) => `project:p${String(i).padStart(2, '0')}`);
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }], person_shared_scopes: SCOPES })));
afterAll(() => stopPair({ a, b }));

describe('a legal hold placed while an erasure runs', () => {
  it('keeps the record it covers (nothing removes a held record)', async () => {
    const subject = 'user:held-late';
    const c = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
    for (const scope of SCOPES) {
      const put = await c.rec({ op: 'put', scope, record_key: 'r', body: { scope }, expect: 0 });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    const last = SCOPES.at(-1)!;
    const erasing = a.admin('POST', '/v1/tenants/acme/erasures', { data_subject: subject });
    // As soon as the request is a fact, a hold on the scope the erasure reaches last.
    let requested: number | null = null;
    while (requested === null) {
      const { rows } = await a.pool.query<{ p: string }>(
        `SELECT position::text AS p FROM custodian_events WHERE type = 'ErasureRequested' AND data->>'data_subject' = $1`,
        [subject],
      );
      requested = rows[0] ? Number(rows[0].p) : null;
      if (requested === null) await new Promise((r) => setImmediate(r));
    }
    const hold = await b.admin('POST', '/v1/tenants/acme/holds', { selector: { scope: last }, reason: 'litigation' });
    expect(hold.status, JSON.stringify(hold.body)).toBeLessThan(300);
    const erased = await erasing;
    expect(erased.status, JSON.stringify(erased.body)).toBeLessThan(300);

    const { rows } = await a.pool.query<{ type: string; p: string }>(
      `SELECT type, position::text AS p FROM custodian_events
        WHERE (type = 'HoldPlaced' AND data->'selector'->>'scope' = $1) OR (type = 'RecordRemoved' AND data->>'scope' = $1)`,
      [last],
    );
    const placed = Number(rows.find((r) => r.type === 'HoldPlaced')!.p);
    const removed = rows.find((r) => r.type === 'RecordRemoved');
    // A removal decided before the hold was placed is fair; one after it is not.
    const removedAfterHold = removed !== undefined && Number(removed.p) > placed;
    expect(removedAfterHold, `hold at ${placed}, removal at ${removed?.p}, request at ${requested}`).toBe(false);
    // And the receipt must not call the erasure complete while something of theirs is held.
    if (removed === undefined) expect(erased.body.receipt?.complete ?? erased.body.complete).toBe(false);
  });
});
