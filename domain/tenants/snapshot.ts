import type { Revocation } from '../envelopes/reaches.ts';
import { openSnapshot, sealSnapshot } from '../shared/sealed-snapshot.ts';
import type { TenantState } from './state.ts';

/**
 * A tenant's stream folded up to a revision, as snapshot text MACed under the tenant's envelope
 * key: its state, its revocation batches (what the fence and a mint's revocation check read)
 * and the global position of the newest event folded (so a fold asked to stop below a position
 * starts from it only when it lies below). A snapshot whose MAC does not hold is ignored: the
 * stream is folded from its first event, every event MAC-checked by the store.
 */
const FORMAT = 1;

const KIND = 'tenant-snapshot';

export interface TenantSnapshot {
  readonly state: TenantState;
  readonly batches: readonly { readonly epoch: number; readonly revocations: readonly Revocation[] }[];
  readonly position: number;
}

export const packTenant = (snapshot: TenantSnapshot, stream: string, revision: number, mac: (input: string) => string): string => {
  const text = JSON.stringify(snapshot);
  return sealSnapshot(KIND, String(FORMAT), text, stream, revision, mac);
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The snapshot, or null: another format, a MAC that does not hold, a shape this build does not read. */
export const unpackTenant = (packed: string, stream: string, revision: number, mac: (input: string) => string): TenantSnapshot | null => {
  const text = openSnapshot(packed, KIND, String(FORMAT), stream, revision, mac);
  if (text === null) return null;
  const parsed = JSON.parse(text) as unknown;
  if (!isObject(parsed) || !isObject(parsed.state) || typeof parsed.state.exists !== 'boolean') return null;
  if (typeof parsed.position !== 'number' || !Array.isArray(parsed.batches)) return null;
  if (!parsed.batches.every((b: unknown) => isObject(b) && typeof b.epoch === 'number' && Array.isArray(b.revocations))) return null;
  return parsed as unknown as TenantSnapshot;
};
