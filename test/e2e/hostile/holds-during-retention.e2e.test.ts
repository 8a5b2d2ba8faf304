import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * retention (like erasure) judges holds once, when the run starts
 * (`commands/compliance.ts` `retention`), then removes scope by scope. A legal hold placed
 * (201) while the run is under way does not protect the record it covers: it is removed after
 * the hold was placed. SPEC §7: "while a hold covers a record, nothing removes it — not its end,
 * not retention". Judged by log positions only.
 */
const DAY = 86_400_000;
const SCOPES = Array.from({ length: 40 }, (_, i) => `project:q${String(i).padStart(2, '0')}`);
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  await svc.admin('POST', '/v1/tenants', {
    id: 'acme',
    settings: { retention_days: 10, person_memory: [{ agent: 'scribe', purpose: 'routine:keep' }], person_shared_scopes: SCOPES },
  });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => svc?.stop());

describe('a legal hold placed while retention runs', () => {
  it('keeps the person record it covers', async () => {
    const c = await caller(svc, 'acme', { purpose: 'routine:keep', start: { timeout_ms: 300 * DAY } });
    const now = (await svc.admin('POST', '/v1/_clock', { advance_ms: 0 })).body.now_ms as number;
    for (const scope of SCOPES) {
      const put = await c.rec({ op: 'put', scope, record_key: 'p', body: { scope }, expect: 0, subject_kind: 'person', ends_at: now + DAY });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    await svc.admin('POST', '/v1/_clock', { advance_ms: 2 * DAY });
    const last = SCOPES.at(-1)!;
    const running = svc.admin('POST', '/v1/tenants/acme/retention/run');
    // The run is under way once its first removal is a fact; then a hold on the scope it reaches last.
    for (;;) {
      const { rows } = await svc.pool.query(`SELECT 1 FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'scope' = $1`, [SCOPES[0]]);
      if (rows.length > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    const hold = await svc.admin('POST', '/v1/tenants/acme/holds', { selector: { scope: last }, reason: 'litigation' });
    expect(hold.status, JSON.stringify(hold.body)).toBeLessThan(300);
    expect((await running).status).toBe(200);

    const { rows } = await svc.pool.query<{ type: string; p: string }>(
      `SELECT type, position::text AS p FROM custodian_events
        WHERE (type = 'HoldPlaced' AND data->'selector'->>'scope' = $1) OR (type = 'RecordRemoved' AND data->>'scope' = $1)`,
      [last],
    );
    const placed = Number(rows.find((r) => r.type === 'HoldPlaced')!.p);
    const removed = rows.find((r) => r.type === 'RecordRemoved');
    expect(removed !== undefined && Number(removed.p) > placed, `hold at ${placed}, removal at ${removed?.p}`).toBe(false);
  });
});
