import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPair, stopPair } from '../../support/pair.ts';
import { growTenant } from '../../support/tenant-growth.ts';
import { caller, records } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * A cold instance starts a tenant's fold (a mint's tenant log, the fence's revocation batches)
 * from the tenant's MACed snapshot and the log's events after it: a revocation batch appended
 * after the snapshot still reaches the job on that instance, and a snapshot edited in its row
 * is not used at all.
 */
let pair: { a: TestService; b: TestService };
beforeAll(async () => {
  pair = await startPair();
  await pair.a.admin('POST', '/v1/tenants/acme/plugins', { name: 'other', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => {
  await stopPair(pair);
});

const snapshotRevision = async (svc: TestService) => {
  const { rows } = await svc.pool.query<{ revision: string }>(`SELECT revision FROM custodian_snapshots WHERE stream = 'tenant:acme'`);
  return rows[0] ? Number(rows[0].revision) : -1;
};

describe("a cold instance's tenant", () => {
  it('is its snapshot caught up with the log: a batch appended after the snapshot reaches the job; a snapshot moved in its row is not used', async () => {
    await growTenant(pair.a, 'acme', 150);
    await pair.a.runner.catchUp();
    const before = await caller(pair.a, 'acme', { plugin: 'other' });
    // Written after the answer that took it: every write scheduled so far has ended.
    await snapshotWritesSettled();
    const at = await snapshotRevision(pair.a);
    expect(at).toBeGreaterThanOrEqual(150);

    // After the snapshot: the agent of `other` is killed on B.
    const killed = await pair.b.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'kill_agent', agent: 'other/scribe' }] });
    expect(killed.status).toBe(200);
    // A job of `notes` is not reached.
    const spared = await caller(pair.a, 'acme');

    const c = await startTestService({ shareWith: pair.a });
    try {
      expect((await snapshotRevision(c)) === at).toBe(true);
      expect((await records(c, before.ticket, { op: 'get', scope: 'tenant', record_key: 'x' })).status).toBe(403);
      expect((await c.admin('POST', `/v1/tenants/acme/jobs/${before.job}/calls`, { function: 'save' })).status).toBe(403);
      expect((await records(c, spared.ticket, { op: 'get', scope: 'tenant', record_key: 'x' })).status).toBe(200);
      expect((await c.admin('POST', `/v1/tenants/acme/jobs/${spared.job}/calls`, { function: 'save' })).status).toBe(201);
    } finally {
      await c.stop();
    }

    // The snapshot's row moved past the kill (as if it held it and found nothing): were it used, the
    // kill would never be read; its MAC binds its revision, so it is not used.
    await pair.a.pool.query(`UPDATE custodian_snapshots SET revision = revision + 1000 WHERE stream = 'tenant:acme'`);
    const d = await startTestService({ shareWith: pair.a });
    try {
      expect((await d.admin('POST', `/v1/tenants/acme/jobs/${spared.job}/calls`, { function: 'save' })).status).toBe(201);
      expect((await records(d, spared.ticket, { op: 'get', scope: 'tenant', record_key: 'x' })).status).toBe(200);
      expect((await records(d, before.ticket, { op: 'get', scope: 'tenant', record_key: 'x' })).status).toBe(403);
    } finally {
      await d.stop();
    }
  });
});
