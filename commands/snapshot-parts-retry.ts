import type { SnapshotStore } from '../domain/ports/snapshots.ts';
import type { SnapshotCadence } from './snapshot-cadence.ts';
import { PartsMissing } from '../domain/shared/keyed.ts';
import { readParts, SnapshotPartsGone } from '../queries/job-parts.ts';

/**
 * Runs a command or a look again when a state it started from held a snapshot part not read
 * yet (read now: the cached state keeps it) or named one that is not as named (a newer snapshot
 * rewrote it: the state is forgotten with `forget` and read again; the second time, the stream
 * is marked in `replayWhole` and folded from its log). Nothing was appended or answered when
 * either is thrown: each comes before a decision, from the fold of a state read, or from a look
 * that makes every look into parts before it answers anything. Used by the scope's and the
 * agent's commands.
 */
export const snapshotPartsRetry =
  (snapshots: SnapshotStore | undefined, forget: (stream: string) => void, replayWhole: Set<string>) =>
  async <T>(stream: string, work: () => Promise<T>): Promise<T> => {
    let gone = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (!snapshots || attempt > 20 || !(error instanceof SnapshotPartsGone || error instanceof PartsMissing)) throw error;
        const missing =
          error instanceof PartsMissing
            ? await readParts(snapshots, error.parts).then(
                () => null,
                (e: unknown) => e,
              )
            : error;
        if (missing === null) continue;
        if (!(missing instanceof SnapshotPartsGone)) throw missing;
        forget(stream);
        if (++gone > 1) replayWhole.add(stream);
      }
    }
  };

/**
 * Loads a stream's state from its snapshot head for `HandlerOptions.snapshot`, noting in
 * `snapshotAt` (its snapshot cadence) the revision it starts from: `null` (fold from the log) for a stream marked in
 * `replayWhole`, or when the parts its head names are gone twice (a newer snapshot rewrote
 * them between reading the head and its parts; the second read sees the newer head).
 */
export const headOrReplay = async <F>(
  stream: string,
  snapshotAt: Pick<SnapshotCadence, 'set'>,
  replayWhole: Set<string>,
  load: () => Promise<{ readonly at: number; readonly folded: F | null }>,
): Promise<F | null> => {
  if (replayWhole.delete(stream)) {
    snapshotAt.set(stream, -1);
    return null;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const { at, folded } = await load();
      snapshotAt.set(stream, at);
      return folded;
    } catch (error) {
      if (!(error instanceof SnapshotPartsGone)) throw error;
      if (attempt >= 2) {
        snapshotAt.set(stream, -1);
        return null;
      }
    }
  }
};
