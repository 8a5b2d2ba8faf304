import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * retention appends a scope's removals first and shreds each removed record's keys
 * after, one by one (`commands/compliance.ts` `retention`: `shredRecord` per key). A put that
 * starts a new record on a removed key in between reuses the key this instance still knows
 * (its row is still there, so the `FOR SHARE` check passes), commits, and then retention's
 * `shredRecord` deletes that key: the new record answered 200, yet it is neither readable nor
 * removed — and nothing will ever remove it (retention has no late sweep).
 */
const DAY = 86_400_000;
const KEYS = Array.from({ length: 60 }, (_, i) => `p${String(i).padStart(2, '0')}`);
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  await svc.admin('POST', '/v1/tenants', { id: 'acme', settings: { retention_days: 10, person_memory: [{ agent: 'scribe', purpose: 'routine:keep' }] } });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => svc?.stop());

describe('a new record put on a key retention has just removed', () => {
  it('reads back, or is removed', async () => {
    const c = await caller(svc, 'acme', { purpose: 'routine:keep', start: { timeout_ms: 300 * DAY } });
    const now = (await svc.admin('POST', '/v1/_clock', { advance_ms: 0 })).body.now_ms as number;
    for (const key of KEYS) {
      const put = await c.rec({ op: 'put', scope: 'agent:scribe', record_key: key, body: { old: key }, subject_kind: 'person', ends_at: now + DAY, expect: 0 });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    await svc.admin('POST', '/v1/_clock', { advance_ms: 2 * DAY });
    const last = KEYS.at(-1)!;
    const running = svc.admin('POST', '/v1/tenants/acme/retention/run');
    // The scope's removals are facts; its keys are being shredded one by one.
    for (;;) {
      const { rows } = await svc.pool.query(`SELECT 1 FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'key' = $1`, [last]);
      if (rows.length > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    const put = await c.rec({ op: 'put', scope: 'agent:scribe', record_key: last, body: { fresh: true }, expect: 0 });
    expect((await running).status).toBe(200);
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const { rows } = await svc.pool.query<{ p: string }>(
      `SELECT position::text AS p FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'key' = $1 ORDER BY position`,
      [last],
    );
    const removedAgain = rows.length > 1;
    // The put wrote a new record (version 1 again), after the removal.
    const { rows: written } = await svc.pool.query<{ p: string }>(
      `SELECT position::text AS p FROM custodian_events WHERE type = 'RecordVersionWritten' AND data->>'key' = $1 ORDER BY position`,
      [last],
    );
    expect(written).toHaveLength(2);
    expect(Number(written[1]!.p)).toBeGreaterThan(Number(rows[0]!.p));
    const got = await c.rec({ op: 'get', scope: 'agent:scribe', record_key: last });
    expect(got.status).toBeLessThan(500);
    const readable = got.body.record?.body?.fresh === true;
    const { rows: keyRows } = await svc.pool.query(`SELECT 1 FROM custodian_data_keys WHERE tenant = 'acme' AND record_key = $1`, [last]);
    expect({ readable, removedAgain }, `new record's key rows: ${keyRows.length}; get: ${JSON.stringify(got.body)}`).not.toEqual({
      readable: false,
      removedAgain: false,
    });
  });
});
