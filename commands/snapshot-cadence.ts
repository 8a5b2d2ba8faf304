/**
 * When a stream's next snapshot is due: once a fold or an append leaves it `every` events past
 * the newest snapshot this instance knows of (read, or taken here). Up to `remembered` streams
 * are remembered, then all are forgotten at once: a stream forgotten is snapshotted sooner,
 * never later.
 */
export const snapshotCadence = (every: number, remembered: number) => {
  const at = new Map<string, number>();
  return {
    /** The newest snapshot of `stream` is at `revision` (-1: it has none, or none that holds). */
    set(stream: string, revision: number) {
      if (at.size > remembered) at.clear();
      at.set(stream, revision);
    },
    /** Whether a state at `revision` is to be snapshotted now; when it is, it is the newest from here on. */
    due(stream: string, revision: number): boolean {
      if (revision - (at.get(stream) ?? -1) < every) return false;
      at.set(stream, revision);
      return true;
    },
  };
};

export type SnapshotCadence = ReturnType<typeof snapshotCadence>;
