import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../domain/events/registry.ts';
import { assertUntampered, type EventStore } from '../domain/ports/event-store.ts';
import type { Revocation } from '../domain/envelopes/reaches.ts';
import { foldTenant, initialTenantState, type TenantState, type TenantStreamEvent } from '../domain/tenants/state.ts';
import { TENANT_SNAPSHOT_EVERY, type TenantSnapshots } from '../queries/tenant-snapshots.ts';
import type { Folded } from './handle.ts';

type Batch = { readonly epoch: number; readonly revocations: readonly Revocation[] };

/**
 * A tenant's stream as it stands now, folded in one linear fold (event by event, its growing
 * maps would be copied once per event): the starting point `handle` takes for a tenant it has
 * not folded. With `snapshots`, the fold starts from the tenant's MACed snapshot (one that does
 * not hold is not used) and reads only the events after it, every one MAC-checked by the store;
 * a fold that went far enough past the snapshot leaves the next one.
 */
export const tenantFolded =
  (store: EventStore, snapshots?: TenantSnapshots, onError?: (error: unknown) => void) =>
  async (stream: string): Promise<Folded<TenantState> | null> => {
    const tenant = stream.slice('tenant:'.length);
    const from = snapshots ? await snapshots.load(tenant) : null;
    const records = await store.readStream(stream, from ? from.revision + 1 : 0);
    if (!from && records.length === 0) return null;
    let batches: Batch[] | null = null;
    const events = records.map((r): TenantStreamEvent => {
      assertUntampered(r);
      const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
      if (E.isLeft(decoded)) throw new Error(`stream ${stream} revision ${r.revision}: ${decoded.left}`);
      const e = decoded.right as TenantStreamEvent;
      if (e.type === 'RevocationBatchApplied') (batches ??= [...(from?.batches ?? [])]).push({ epoch: e.data.epoch, revocations: e.data.revocations });
      return e;
    });
    const state = foldTenant(from?.state ?? initialTenantState(), events);
    const revision = records.at(-1)?.revision ?? from!.revision;
    if (snapshots && revision - (from?.revision ?? -1) >= TENANT_SNAPSHOT_EVERY)
      snapshots.saveLater(tenant, revision, { state, batches: batches ?? from?.batches ?? [], position: records.at(-1)!.position }, onError);
    return { state, revision };
  };
