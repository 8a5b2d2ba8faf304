import type { SnapshotStore } from '../domain/ports/snapshots.ts';
import { markWritten, type PackedPart, type WrittenParts } from '../domain/shared/snapshot-parts.ts';

const PARTS_A_STATEMENT = 16;

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
  // A few parts a statement: a big state's parts (a scope of 10,000 records, about 1 MB) are
  // then serialised and sent a slice at a time, not in one turn of the event loop.
  for (let i = 0; i < packed.parts.length; i += PARTS_A_STATEMENT) {
    const slice = packed.parts.slice(i, i + PARTS_A_STATEMENT);
    await snapshots.saveMany(slice.map((p) => [p.key, { revision, state: p.text }] as const));
    markWritten(written, slice);
  }
  await snapshots.save(key, { revision, state: packed.head });
};

/**
 * Runs a snapshot's write once the caller is answered (what it holds was taken before, under
 * the stream's lock): a write that fails is only heard, since a lost snapshot costs a replay,
 * never a decision.
 */
export const writeLater = (write: () => Promise<void>, onError?: (error: unknown) => void): void => {
  setImmediate(() => {
    // Packing throws inside the promise too: heard, never an uncaught exception.
    void (async () => write())().catch((error: unknown) => onError?.(error));
  });
};
