import type { SnapshotStore } from '../domain/ports/snapshots.ts';
import { markWritten, type PackedPart, type WrittenParts } from '../domain/shared/snapshot-parts.ts';

/**
 * Writes a packed snapshot: its parts first, then its head (a head is never read naming parts
 * not written yet); the parts are noted as written only once their rows are, so a write that
 * fails is tried again by the next snapshot instead of being named unwritten ever after.
 */
export const writeSnapshot = async (
  snapshots: SnapshotStore,
  key: string,
  revision: number,
  packed: { readonly head: string; readonly parts: readonly PackedPart[] },
  written: WrittenParts,
): Promise<void> => {
  await snapshots.saveMany(packed.parts.map((p) => [p.key, { revision, state: p.text }] as const));
  markWritten(written, packed.parts);
  await snapshots.save(key, { revision, state: packed.head });
};
