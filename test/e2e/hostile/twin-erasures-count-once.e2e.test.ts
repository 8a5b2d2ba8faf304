import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * the same subject erased on A and on B at once. Neither answers 5xx, each
 * record is removed once, and the receipts' `erased` counts add up to the removals the log
 * holds (a receipt never claims a removal another erasure made).
 */
const SCOPES = Array.from({ length: 12 }, (_, i) => `project:t${String(i).padStart(2, '0')}`);
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }], person_shared_scopes: SCOPES })));
afterAll(() => stopPair({ a, b }));

describe('one subject erased on both instances at once', () => {
  it('answers no 5xx and the receipts count each removal once', async () => {
    for (let round = 0; round < 3; round++) {
      const subject = `user:twin${round}`;
      const c = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
      for (const scope of SCOPES) expect((await c.rec({ op: 'put', scope, record_key: `k${round}`, body: { scope }, expect: 0 })).status).toBe(200);
      const answers = await Promise.all([a, b].map((svc) => svc.admin('POST', '/v1/tenants/acme/erasures', { data_subject: subject })));
      for (const r of answers) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
      const { rows } = await a.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'key' = $1`, [
        `k${round}`,
      ]);
      expect(rows[0]!.n).toBe(SCOPES.length);
      const claimed = answers.filter((r) => r.status < 300).reduce((n, r) => n + Number(r.body.receipt?.erased ?? r.body.erased ?? 0), 0);
      expect(claimed, JSON.stringify(answers.map((r) => r.body))).toBe(SCOPES.length);
    }
  });
});
