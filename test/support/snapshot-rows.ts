import type { Snapshot, SnapshotStore } from '../../domain/ports/snapshots.ts';

/**
 * A snapshot store over a map of rows (a test reads, moves and edits them), keeping the newer
 * of two writes to a row as the PostgreSQL one does; each read takes a turn of the event loop,
 * as a database round trip does, so other work interleaves with it.
 */
export const snapshotRows = (): { rows: Map<string, Snapshot>; store: SnapshotStore } => {
  const rows = new Map<string, Snapshot>();
  const later = () => new Promise((r) => setImmediate(r));
  const keep = (stream: string, s: Snapshot) => {
    const old = rows.get(stream);
    if (!old || old.revision < s.revision) rows.set(stream, s);
  };
  const store: SnapshotStore = {
    async load(stream) {
      await later();
      return rows.get(stream) ?? null;
    },
    async loadMany(streams) {
      await later();
      return new Map(streams.flatMap((s) => (rows.has(s) ? [[s, rows.get(s)!] as const] : [])));
    },
    async save(stream, s) {
      keep(stream, s);
    },
    async saveMany(list) {
      for (const [stream, s] of list) keep(stream, s);
    },
  };
  return { rows, store };
};
