/**
 * Stream snapshots: a state folded up to a revision, kept beside the log so a cold load reads
 * one row and the events after it instead of the whole stream. A snapshot is only ever a
 * cache of the log: losing one costs a replay, never a decision.
 */
export interface Snapshot {
  readonly revision: number;
  readonly state: string;
}

export interface SnapshotStore {
  load(stream: string): Promise<Snapshot | null>;
  /** Keeps the newest: a snapshot older than the one stored is dropped. */
  save(stream: string, snapshot: Snapshot): Promise<void>;
  /** Several rows in one read (a job snapshot's parts): the ones found, by stream. */
  loadMany(streams: readonly string[]): Promise<Map<string, Snapshot>>;
  /** Several rows in one write, each kept only when newer than the one stored. */
  saveMany(rows: readonly (readonly [string, Snapshot])[]): Promise<void>;
}
