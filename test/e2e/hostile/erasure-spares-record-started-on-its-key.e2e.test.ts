import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * an erasure appends a scope's removals, then shreds each removed record's keys one
 * by one — every owner's key, the tenant's too. A job of no data subject that starts a new record
 * on one of those keys in between reuses the tenant-owned key this instance still knows (its row
 * is still there), commits 200, and then the erasure's `shredRecord` deletes that key. The late
 * sweep only removes the erased subject's records, and this new one is not theirs: it is left,
 * neither readable nor removed — a record of someone else lost to the erasure.
 */
const KEYS = Array.from({ length: 60 }, (_, i) => `k${String(i).padStart(2, '0')}`);
let a: TestService;
beforeAll(async () => {
  a = await startTestService();
  await a.admin('POST', '/v1/tenants', { id: 'acme', settings: { person_memory: [{ agent: 'scribe', purpose: 'routine:r' }] } });
  await a.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => a?.stop());

describe('a record of no subject started on a key the erasure has just removed', () => {
  it('reads back, or is removed', async () => {
    const subject = 'user:reuse';
    const tenantJob = await caller(a, 'acme', { purpose: 'routine:r' });
    const theirs = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
    for (const key of KEYS) {
      const first = await tenantJob.rec({ op: 'put', scope: 'agent:scribe', record_key: key, body: { by: 'tenant' }, expect: 0 });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const second = await theirs.rec({ op: 'put', scope: 'agent:scribe', record_key: key, body: { by: subject }, expect: 1 });
      expect(second.status, JSON.stringify(second.body)).toBe(200);
    }
    const last = KEYS.at(-1)!;
    const erasing = a.admin('POST', '/v1/tenants/acme/erasures', { data_subject: subject });
    for (;;) {
      const { rows } = await a.pool.query(`SELECT 1 FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'key' = $1`, [last]);
      if (rows.length > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    const put = await tenantJob.rec({ op: 'put', scope: 'agent:scribe', record_key: last, body: { fresh: true }, expect: 0 });
    const erased = await erasing;
    expect(erased.status, JSON.stringify(erased.body)).toBeLessThan(300);
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const { rows: removed } = await a.pool.query(`SELECT 1 FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'key' = $1`, [last]);
    // The put wrote a new record of no subject, after the removal.
    const { rows: newest } = await a.pool.query<{ subject: string | null; version: string }>(
      `SELECT data->>'data_subject' AS subject, data->>'version' AS version FROM custodian_events
        WHERE type = 'RecordVersionWritten' AND data->>'key' = $1 ORDER BY position DESC LIMIT 1`,
      [last],
    );
    expect(newest[0]).toEqual({ subject: null, version: '1' });
    const got = await tenantJob.rec({ op: 'get', scope: 'agent:scribe', record_key: last });
    expect(got.status).toBeLessThan(500);
    const readable = got.body.record?.body?.fresh === true;
    expect({ readable, removedAgain: removed.length > 1 }, `get: ${JSON.stringify(got.body)}`).not.toEqual({ readable: false, removedAgain: false });
  });
});
