import type { EnvelopeMacs } from '../domain/ports/envelope-macs.ts';
import type { SnapshotStore } from '../domain/ports/snapshots.ts';
import { tenantStream } from '../domain/shared/names.ts';
import { writeLater } from './snapshot-write.ts';
import { packTenant, unpackTenant, type TenantSnapshot } from '../domain/tenants/snapshot.ts';

/** Events a tenant's stream gains between the snapshots one instance writes. */
export const TENANT_SNAPSHOT_EVERY = 100;

/**
 * Tenant snapshots, MACed under the tenant's envelope key: a cold instance starts a tenant's
 * fold from one and the events after it (each MAC-checked by the store), not from the stream's
 * first event. A snapshot is only a cache of the log: one missing or not holding costs a fold.
 */
export const tenantSnapshots = (snapshots: SnapshotStore, macs: EnvelopeMacs) => ({
  async load(tenant: string): Promise<(TenantSnapshot & { readonly revision: number }) | null> {
    const stream = tenantStream(tenant);
    const found = await snapshots.load(stream);
    const snapshot = found ? unpackTenant(found.state, stream, found.revision, macs(tenant)) : null;
    return found && snapshot ? { ...snapshot, revision: found.revision } : null;
  },
  /** Packed and written after the caller is answered (the fold is a value: nothing changes it). */
  saveLater(tenant: string, revision: number, snapshot: TenantSnapshot, onError?: (error: unknown) => void) {
    const stream = tenantStream(tenant);
    writeLater(() => snapshots.save(stream, { revision, state: packTenant(snapshot, stream, revision, macs(tenant)) }), onError);
  },
});

export type TenantSnapshots = ReturnType<typeof tenantSnapshots>;
