import type { EventStore, RecordedEvent } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';

/** A stream as the event browser lists it. */
export interface StreamListing {
  readonly stream: string;
  /** The revision of its last event (0-based). */
  readonly revision: number;
}

/** Where a store keeps no stream table (memory, EventStoreDB), at most this many events are scanned for names. */
const SCAN_LIMIT = 200_000;
const SCAN_PAGE = 2_000;

const hasStreamTable = async (db: Sql) => (await db.query<{ t: string | null }>("SELECT to_regclass('custodian_streams')::text AS t")).rows[0]?.t != null;

/**
 * Streams whose names start with `prefix`, in name order after `after`. The PostgreSQL store
 * keeps a table of streams; any other store is scanned from the start (bounded, and the
 * answer says so), since the event store's port has no stream listing.
 */
export const listStreams = async (store: EventStore, db: Sql, prefix: string, after: string, limit: number) => {
  if (store.name === 'postgres' || (await hasStreamTable(db))) {
    const { rows } = await db.query<{ stream: string; revision: string }>(
      `SELECT stream, revision FROM custodian_streams
        WHERE starts_with(stream, $1) AND stream > $2 ORDER BY stream COLLATE "C" LIMIT $3`,
      [prefix, after, limit + 1],
    );
    return { streams: rows.slice(0, limit).map((r) => ({ stream: r.stream, revision: Number(r.revision) })), more: rows.length > limit, scanned: null };
  }
  const seen = new Map<string, number>();
  let position = 0;
  let scanned = 0;
  for (;;) {
    const page = await store.readAll(position, { limit: SCAN_PAGE });
    for (const e of page) if (e.stream.startsWith(prefix) && e.stream > after) seen.set(e.stream, e.revision);
    scanned += page.length;
    if (page.length < SCAN_PAGE || scanned >= SCAN_LIMIT) break;
    position = page.at(-1)!.position;
  }
  const names = [...seen.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { streams: names.slice(0, limit).map((stream) => ({ stream, revision: seen.get(stream)! })), more: names.length > limit, scanned };
};

const isSealed = (v: unknown): v is { k: string; n: string; c: string } =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 3 &&
  ['k', 'n', 'c'].every((k) => typeof (v as Record<string, unknown>)[k] === 'string');

/**
 * An event's data as the browser shows it: a sealed value (AES-GCM `{k, n, c}`) stays sealed,
 * replaced by a marker naming its data key and ciphertext length; nothing is ever opened here.
 */
export const sealedView = (v: unknown): unknown => {
  if (isSealed(v)) return { $sealed: { key: v.k, ciphertext_bytes: Math.floor((v.c.length * 3) / 4) } };
  if (Array.isArray(v)) return v.map(sealedView);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sealedView(x)]));
  return v;
};

/** A stream's events from `from` (a revision), at most `limit`: type, version, position, time, metadata, data with sealed values kept sealed. */
export const streamEvents = async (store: EventStore, stream: string, from: number, limit: number) => {
  const events: readonly RecordedEvent[] = await store.readStream(stream, from);
  return {
    stream,
    events: events.slice(0, limit).map((e) => ({
      revision: e.revision,
      position: e.position,
      type: e.type,
      schema_version: e.schema_version,
      recorded_at: e.recorded_at,
      event_id: e.event_id,
      metadata: e.metadata,
      data: sealedView(e.data),
    })),
    more: events.length > limit,
  };
};
