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

/** The snapshot writes of this process not ended yet (see `snapshotWritesSettled`). */
const running = new Set<Promise<void>>();

/**
 * Runs a snapshot's write once the caller is answered (what it holds was taken before, under
 * the stream's lock): a write that fails is only heard, since a lost snapshot costs a replay,
 * never a decision.
 */
export const writeLater = (write: () => Promise<void>, onError?: (error: unknown) => void): void => {
  // Packing throws inside the promise too: heard, never an uncaught exception.
  const ended: Promise<void> = new Promise<void>((next) => setImmediate(next))
    .then(write)
    .catch((error: unknown) => onError?.(error))
    .finally(() => running.delete(ended));
  running.add(ended);
};

/**
 * Resolves once every snapshot write this process scheduled before the call has ended, written
 * or failed. A snapshot is written after the answer that took it: a shutdown waits here before
 * it ends the pool the write needs, and a test that needs the row waits here, not on a clock.
 */
export const snapshotWritesSettled = async (): Promise<void> => {
  await Promise.all([...running]);
};
