import { PartsMissing, type PartStub } from '../domain/shared/keyed.ts';
import { openPart } from '../domain/shared/snapshot-parts.ts';
import type { SnapshotStore } from '../domain/ports/snapshots.ts';

/**
 * A snapshot's head (a job's, a scope's, an agent's) names a part its row no longer holds (a later snapshot rewrote it, or
 * it was removed) or holds with other text: the snapshot is not used, the stream is replayed.
 */
export class SnapshotPartsGone extends Error {
  constructor(readonly key: string) {
    super(`snapshot part ${key} is not the one its head names`);
  }
}

/** Reads the parts into their stubs, in one read; a part that is not as its head names it throws `SnapshotPartsGone`. */
export const readParts = async (snapshots: SnapshotStore, stubs: readonly PartStub[]): Promise<void> => {
  const wanted = stubs.filter((s) => s.node === null);
  if (wanted.length === 0) return;
  const rows = await snapshots.loadMany([...new Set(wanted.map((s) => s.key))]);
  for (const stub of wanted) {
    const row = rows.get(stub.key);
    const node = row ? openPart(stub, row.state) : null;
    if (!node) throw new SnapshotPartsGone(stub.key);
    stub.node = node as PartStub['node'];
  }
};

/**
 * Runs pure work on a state that may hold parts not read yet: each time it looks into one, the
 * parts it named are read and the work runs again (it changed nothing: states are values).
 */
export const withParts = async <T>(snapshots: SnapshotStore | undefined, work: () => T): Promise<T> => {
  for (;;) {
    try {
      return work();
    } catch (error) {
      if (!(error instanceof PartsMissing) || !snapshots) throw error;
      await readParts(snapshots, error.parts);
    }
  }
};
