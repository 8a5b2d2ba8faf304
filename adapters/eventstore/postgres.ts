import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import type { EventStore, NewEvent, RecordedEvent } from '../../domain/ports/event-store.ts';
import { pollingSubscription } from './subscription.ts';
import { meetsExpectation } from './expected-revision.ts';
import { postgresStreamMarks } from './postgres-marks.ts';
import type { AdmissionGuard } from '../../domain/ports/admission-guard.ts';
import { prepared } from '../postgres/prepared.ts';
import { groupCommitter } from './postgres-group-commit.ts';
import type { InlineProjections } from './inline-projections.ts';

const CHANNEL = 'custodian_events';

/** An events row as the store reads it (`EVENT_COLUMNS`). */
export interface EventRow {
  position: number;
  stream: string;
  revision: number;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: NewEvent['metadata'];
  recorded_ms: number;
}

export const toRecorded = (r: EventRow): RecordedEvent => ({
  position: r.position,
  stream: r.stream,
  revision: r.revision,
  event_id: r.event_id,
  type: r.type,
  schema_version: r.schema_version,
  data: r.data,
  metadata: r.metadata,
  recorded_at: r.recorded_ms,
});

/** The columns every read of the log selects, as `toRecorded` takes them. */
export const EVENT_COLUMNS = `position, stream, revision, event_id, type, schema_version, data, metadata,
  (extract(epoch from recorded_at) * 1000)::bigint AS recorded_ms`;

export interface PostgresStoreOptions {
  /** Read models written in each batch's own statement (see postgres-group-commit.ts). */
  readonly inline?: InlineProjections;
}

/** The PostgreSQL log, and a way to count a cached admission that appends nothing. */
export interface PostgresEventStore extends EventStore {
  /** Commits a cached admission's guard alone with the next batch (a request that appends nothing): false when it failed. */
  guardAlone(guard: AdmissionGuard): Promise<boolean>;
}

export const postgresEventStore = async (pool: pg.Pool, options: PostgresStoreOptions = {}): Promise<PostgresEventStore> => {
  const listeners = new Set<(position?: number) => void>();
  // One LISTEN connection, opened on first need; the promise is shared so that two callers
  // racing to open it do not leak a second pooled client.
  let listening: Promise<pg.PoolClient> | null = null;

  const ensureListening = () => {
    listening ??= (async () => {
      const client = await pool.connect();
      client.on('notification', (n) => {
        const position = Number(n.payload);
        listeners.forEach((l) => l(Number.isSafeInteger(position) ? position : undefined));
      });
      client.on('error', () => undefined);
      await client.query(`LISTEN ${CHANNEL}`);
      return client;
    })();
    return listening;
  };

  const actualRevision = async (stream: string): Promise<number | 'no_stream'> => {
    const { rows } = await pool.query<{ revision: number }>('SELECT revision FROM custodian_streams WHERE stream = $1', [stream]);
    return rows[0]?.revision ?? 'no_stream';
  };

  const committer = groupCommitter(pool, options.inline ?? null);

  const store: PostgresEventStore = {
    name: 'postgres',
    guardAlone: (guard) => committer.guardAlone(guard),
    marks: postgresStreamMarks(pool),
    appendChain: (units) => committer.appendChain(units),
    async append(stream, events, expected, appendWith) {
      if (events.length === 0) {
        const actual = await actualRevision(stream);
        if (!meetsExpectation(expected, actual)) return E.left({ kind: 'wrong_expected_revision', stream, expected, actual });
        return E.right({ nextExpectedRevision: actual === 'no_stream' ? -1 : actual, position: await store.headPosition() });
      }
      return committer.append(stream, events, expected, appendWith);
    },
    async readStream(stream, fromRevision = 0) {
      const { rows } = await pool.query<EventRow>(
        prepared(`SELECT ${EVENT_COLUMNS} FROM custodian_events WHERE stream = $1 AND revision >= $2 ORDER BY revision`, [stream, fromRevision]),
      );
      return rows.map(toRecorded);
    },
    async readAll(after, options) {
      const { rows } = await pool.query<EventRow>(
        prepared(
          `SELECT ${EVENT_COLUMNS} FROM custodian_events
           WHERE position > $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
           ORDER BY position LIMIT $2`,
          [after, options?.limit ?? 1000],
        ),
      );
      return rows.map(toRecorded);
    },
    async readAuditLines(tenant, from, limit = 1000) {
      const { rows } = await pool.query<{ tenant: string; seq: string; at: string; line: string }>(
        'SELECT tenant, seq, at, line FROM custodian_audit_lines WHERE tenant = $1 AND seq >= $2 ORDER BY seq LIMIT $3',
        [tenant, from, limit],
      );
      return rows.map((r) => ({ tenant: r.tenant, seq: Number(r.seq), at: Number(r.at), line: r.line }));
    },
    subscribe(after, handler) {
      void ensureListening().catch(() => undefined);
      return pollingSubscription(store, after, handler);
    },
    async committedHead() {
      const { rows } = await pool.query<{ head: number | null }>('SELECT max(position) AS head FROM custodian_events');
      return Number(rows[0]?.head ?? 0);
    },
    async headPosition() {
      const { rows } = await pool.query<{ head: number | null }>(
        'SELECT max(position) AS head FROM custodian_events WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())',
      );
      return rows[0]?.head ?? 0;
    },
    onAppend(l) {
      listeners.add(l);
      void ensureListening().catch(() => undefined);
      return () => listeners.delete(l);
    },
    async close() {
      listeners.clear();
      const pending = listening;
      listening = null;
      const client = await pending?.catch(() => null);
      if (client) {
        await client.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
        client.release();
      }
    },
  };
  return store;
};
