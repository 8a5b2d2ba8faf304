import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPair, stopPair } from '../../support/pair.ts';
import { growTenant } from '../../support/tenant-growth.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * A tenant command (an install) on an instance that has not folded the tenant starts from the
 * tenant's MACed snapshot and the log's events after it, and decides exactly as a replay of the
 * whole stream: a plugin installed before the snapshot keeps its generation, a request answered
 * after it is still answered. A snapshot edited in its row is not used; the stream is folded whole.
 */
let pair: { a: TestService; b: TestService };
beforeAll(async () => {
  pair = await startPair();
});
afterAll(async () => {
  await stopPair(pair);
});

const STREAM = 'tenant:acme';

const snapshotRevision = async (svc: TestService) => {
  const { rows } = await svc.pool.query<{ revision: string }>(`SELECT revision FROM custodian_snapshots WHERE stream = $1`, [STREAM]);
  return rows[0] ? Number(rows[0].revision) : -1;
};

/** The revisions from which `svc` read the tenant's stream, from now on. */
const tenantReadsFrom = (svc: TestService) => {
  const from: number[] = [];
  const read = svc.store.readStream.bind(svc.store);
  svc.store.readStream = (stream, revision) => {
    if (stream === STREAM) from.push(revision ?? 0);
    return read(stream, revision);
  };
  return from;
};

const install = (svc: TestService, body: Record<string, unknown>) =>
  svc.admin('POST', '/v1/tenants/acme/plugins', { functions: ['f'], agents: ['a'], ...body });

describe('a tenant command on an instance that has not folded the tenant', () => {
  it('starts from the MACed snapshot and the events after it, and decides as a replay would; an edited snapshot is not used', async () => {
    await growTenant(pair.a, 'acme', 150);
    // A cold instance's install folds the 150 events and leaves a snapshot of the tenant.
    const first = await startTestService({ shareWith: pair.a });
    try {
      expect((await install(first, { name: 'first' })).status).toBe(201);
    } finally {
      // Its snapshot is written after the answer: a stop lets it end before the pool does.
      await first.stop();
    }
    const at = await snapshotRevision(pair.a);
    expect(at).toBeGreaterThanOrEqual(150);

    // After the snapshot: B answers a request id.
    expect((await install(pair.b, { name: 'late', request_id: 'r-late' })).status).toBe(201);

    const c = await startTestService({ shareWith: pair.a });
    const readsFrom = tenantReadsFrom(c);
    try {
      // g10 was installed before the snapshot: an upgrade keeps its generation.
      const upgraded = await install(c, { name: 'g10', functions: ['f', 'g'] });
      expect(upgraded.status).toBe(201);
      expect(upgraded.body.install_gen).toBe(1010);
      // The request B answered after the snapshot is known: the same id for another request is refused.
      const reused = await install(c, { name: 'other', request_id: 'r-late' });
      expect(reused.status).toBe(409);
      // The tenant was read from after the snapshot, never from its first event.
      expect(readsFrom.length).toBeGreaterThan(0);
      expect(Math.min(...readsFrom)).toBe(at + 1);
    } finally {
      await c.stop();
    }

    // One byte of the snapshot's text changed: its MAC does not hold, so it is not used.
    await pair.a.pool.query(`UPDATE custodian_snapshots SET state = replace(state, '"g11"', '"g1x"') WHERE stream = $1`, [STREAM]);
    const d = await startTestService({ shareWith: pair.a });
    const dReadsFrom = tenantReadsFrom(d);
    try {
      const upgraded = await install(d, { name: 'g11', functions: ['f', 'g'] });
      expect(upgraded.status).toBe(201);
      expect(upgraded.body.install_gen).toBe(1011);
      expect(dReadsFrom[0]).toBe(0);
    } finally {
      await d.stop();
    }
  });
});
