import { EventEmitter } from 'node:events';
import * as E from 'fp-ts/lib/Either.js';
import { appendOneByOne } from './append-chain.ts';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import type { AppendWith, EventMetadata, EventStore, ExpectedRevision, NewEvent, RecordedEvent } from '../../domain/ports/event-store.ts';

/**
 * The event-store port on EventStoreDB (SPEC §10). A stream here is an ESDB stream of the
 * same name; the global position is the event's `$all` commit position, which only grows
 * and, for events not written in explicit transactions (this adapter writes none), equals
 * its prepare position, so one number is enough to resume from.
 *
 * The schema version rides in the event's data envelope, the port's metadata in ESDB
 * metadata, and the event id is the ESDB event id (ESDB makes retried appends idempotent).
 */

interface Stored {
  readonly schema_version: number;
  readonly data: unknown;
}

const expectation = (expected: ExpectedRevision): AppendExpectedRevision => {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return BigInt(expected);
  }
};

const positionOf = (after: number): ReadPosition => (after <= 0 ? START : { commit: BigInt(after), prepare: BigInt(after) });

const isUserEvent = (resolved: ResolvedEvent): boolean => {
  const e = resolved.event;
  return e !== undefined && !e.type.startsWith('$') && !e.streamId.startsWith('$');
};

const toRecorded = (resolved: ResolvedEvent): RecordedEvent => {
  const e = resolved.event!;
  const stored = e.data as unknown as Stored;
  const commit = e.position?.commit ?? resolved.commitPosition;
  if (commit === undefined) throw new Error(`EventStoreDB gave event ${e.id} no $all position (server older than 22.6?)`);
  return {
    event_id: e.id,
    type: e.type,
    schema_version: stored.schema_version,
    data: stored.data,
    metadata: e.metadata as unknown as EventMetadata,
    stream: e.streamId,
    revision: Number(e.revision),
    position: Number(commit),
    recorded_at: e.created.getTime(),
  };
};

/** Opens the store at an `esdb://` connection string (ESDB_URL), e.g. `esdb://127.0.0.1:2113?tls=false`. */
export const esdbEventStore = async (connectionString: string): Promise<EventStore> => {
  const client = EventStoreDBClient.connectionString(connectionString);
  const appended = new EventEmitter();
  appended.setMaxListeners(0);

  // A live `$all` subscription from the end: appends by other processes wake this one's
  // projections and subscribers at once instead of at their next poll.
  const live = client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
  live.on('data', () => appended.emit('append'));
  live.on('error', () => undefined);

  const readStream = async (stream: string, fromRevision = 0): Promise<readonly RecordedEvent[]> => {
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of client.readStream(stream, { fromRevision: BigInt(fromRevision), direction: FORWARDS })) {
        if (resolved.event) out.push(toRecorded(resolved));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  };

  const readAll = async (after: number, limit?: number): Promise<readonly RecordedEvent[]> => {
    const out: RecordedEvent[] = [];
    // System events share $all with ours and are skipped, so read in pages until `limit` is met.
    let from = positionOf(after);
    for (;;) {
      const page = limit === undefined ? 4096 : Math.max(limit - out.length, 1) + 1;
      let read = 0;
      let last: ReadPosition | null = null;
      for await (const resolved of client.readAll({ fromPosition: from, maxCount: page, direction: FORWARDS })) {
        read += 1;
        const e = resolved.event;
        if (e?.position) last = e.position;
        if (!isUserEvent(resolved)) continue;
        const r = toRecorded(resolved);
        // A read from a position includes the event there; the port answers strictly after.
        if (r.position <= after || (out.length > 0 && r.position <= out.at(-1)!.position)) continue;
        out.push(r);
        if (limit !== undefined && out.length >= limit) return out;
      }
      if (read < page || last === null) return out;
      from = last;
    }
  };

  const store: EventStore = {
    name: 'esdb',
    appendChain: (units) => appendOneByOne((u) => store.append(u.stream, u.events, u.expected, u))(units),
    async append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision, options?: AppendWith) {
      // EventStoreDB commits one stream at a time: it cannot make an append wait on another
      // stream's revision, so such an append is refused outright rather than checked loosely.
      // (Compliance runs, which need it, run on PostgreSQL.)
      if ((options?.conditions?.unmoved?.length ?? 0) > 0)
        throw new Error('EventStoreDB cannot append on the condition of another stream (unmoved): use PostgreSQL');
      // Nor can it give an audit line its tenant's next place in the append's own commit (the
      // audit log needs a per-tenant counter beside the events): refused, never written loosely.
      if ((options?.audit?.length ?? 0) > 0)
        throw new Error('EventStoreDB cannot write audit lines with their events (a per-tenant counter in the same commit): use PostgreSQL');
      try {
        const result = await client.appendToStream(
          stream,
          events.map((e) =>
            jsonEvent({
              id: e.event_id,
              type: e.type,
              data: { schema_version: e.schema_version, data: e.data } as never,
              metadata: e.metadata as never,
            }),
          ),
          { expectedRevision: expectation(expected) },
        );
        if (events.length > 0) appended.emit('append');
        return E.right({ nextExpectedRevision: Number(result.nextExpectedRevision), position: Number(result.position?.commit ?? 0n) });
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) {
          const actual = error.actualVersion;
          return E.left({
            kind: 'wrong_expected_revision' as const,
            stream,
            expected,
            actual: typeof actual === 'bigint' ? Number(actual) : ('no_stream' as const),
          });
        }
        throw error;
      }
    },
    readStream,
    readAll: (after, options) => readAll(after, options?.limit),
    subscribe(after, handler) {
      // A catch-up subscription to $all: old events, then new ones as they commit, in order.
      // One event at a time (for await): the next is not taken until the handler is done.
      const sub = client.subscribeToAll({ fromPosition: positionOf(after), filter: excludeSystemEvents() });
      let closing = false;
      let failure: unknown = null;
      let last = after;
      const loop = (async () => {
        try {
          for await (const resolved of sub) {
            if (!isUserEvent(resolved)) continue;
            const r = toRecorded(resolved);
            if (r.position <= last) continue;
            await handler(r);
            last = r.position;
          }
        } catch (error) {
          // A failing handler (or a broken connection) ends the subscription where it stood.
          if (!closing) failure = error;
        }
      })();
      return {
        async close() {
          closing = true;
          await sub.unsubscribe().catch(() => undefined);
          await loop;
          if (failure) throw failure;
        },
      };
    },
    async headPosition() {
      // Newest first, stopping at the first event of ours (system events may sit on top).
      for await (const resolved of client.readAll({ fromPosition: END, direction: BACKWARDS })) {
        if (isUserEvent(resolved)) return toRecorded(resolved).position;
      }
      return 0;
    },
    onAppend(listener) {
      appended.on('append', listener);
      return () => appended.off('append', listener);
    },
    async close() {
      appended.removeAllListeners();
      await live.unsubscribe().catch(() => undefined);
      await client.dispose();
    },
  };
  return store;
};
