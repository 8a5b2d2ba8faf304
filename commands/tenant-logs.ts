import * as E from 'fp-ts/lib/Either.js';
import { assertUntampered, type EventStore } from '../domain/ports/event-store.ts';
import { eventRegistry } from '../domain/events/registry.ts';
import { tenantStream } from '../domain/shared/names.ts';
import { tenantDecider } from '../domain/tenants/decide.ts';
import { foldTenant, type TenantStreamEvent } from '../domain/tenants/state.ts';
import type { Revocation } from '../domain/envelopes/reaches.ts';
import { tenantLog, type TenantLog } from './revocations-since.ts';
import { TENANT_SNAPSHOT_EVERY, type TenantSnapshots } from '../queries/tenant-snapshots.ts';
import { snapshotCadence } from './snapshot-cadence.ts';

interface Known {
  /** The revision and position of the newest event folded (-1 and 0 before the first). */
  readonly revision: number;
  readonly position: number;
  readonly log: TenantLog;
}

const nothing: Known = { revision: -1, position: 0, log: { state: tenantDecider.initialState(), batches: [] } };

/**
 * `tenantLog` kept between commands: each tenant's stream folded once, then caught up from
 * the revision after the newest event folded, so a mint reads only what the tenant's stream
 * gained since the last one (the whole stream was folded for every mint). A fold asked to stop
 * below what is cached (a start deciding on the log below its own position) folds afresh.
 * A tenant this instance has not folded starts from its MACed snapshot and the events after
 * it; a fold that moved far enough past the last snapshot leaves the next one.
 */
export const tenantLogs = (store: EventStore, capacity = 1_000, snapshots?: TenantSnapshots, onError?: (error: unknown) => void) => {
  const known = new Map<string, Known>();
  /** When each tenant's next snapshot is due (by tenant). */
  const cadence = snapshotCadence(TENANT_SNAPSHOT_EVERY, capacity);
  /** A tenant not folded here starts from its snapshot (MAC-checked), else from its first event. */
  const cold = async (tenant: string): Promise<Known> => {
    const found = await snapshots?.load(tenant);
    cadence.set(tenant, found?.revision ?? -1);
    return found ? { revision: found.revision, position: found.position, log: { state: found.state, batches: found.batches } } : nothing;
  };
  const remember = (tenant: string, k: Known) => {
    known.delete(tenant);
    known.set(tenant, k);
    if (known.size > capacity) known.delete(known.keys().next().value!);
  };
  return async (tenant: string, before = Number.POSITIVE_INFINITY): Promise<TenantLog> => {
    let base = known.get(tenant) ?? (await cold(tenant));
    if (base.position >= before) base = known.has(tenant) ? await cold(tenant) : base;
    if (base.position >= before) return tenantLog(store, tenant, before);
    let batches: { readonly epoch: number; readonly revocations: readonly Revocation[] }[] | null = null;
    let { revision, position } = base;
    const events: TenantStreamEvent[] = [];
    for (const r of await store.readStream(tenantStream(tenant), base.revision + 1)) {
      if (r.position >= before) break;
      assertUntampered(r);
      const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
      if (E.isLeft(decoded)) throw new Error(`tenant ${tenant} revision ${r.revision}: ${decoded.left}`);
      const e = decoded.right as TenantStreamEvent;
      events.push(e);
      if (e.type === 'RevocationBatchApplied') (batches ??= [...base.log.batches]).push({ epoch: e.data.epoch, revocations: e.data.revocations });
      revision = r.revision;
      position = r.position;
    }
    // One fold for all of it: linear in what the stream gained, whatever its length.
    const state = events.length === 0 ? base.log.state : foldTenant(base.log.state, events);
    const log: TenantLog = { state, batches: batches ?? base.log.batches };
    if (revision > (known.get(tenant)?.revision ?? -2)) remember(tenant, { revision, position, log });
    if (snapshots && cadence.due(tenant, revision)) snapshots.saveLater(tenant, revision, { state: log.state, batches: log.batches, position }, onError);
    return log;
  };
};

export type TenantLogs = ReturnType<typeof tenantLogs>;
