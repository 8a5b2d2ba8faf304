import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import type { EventStore, ExpectedRevision, NewEvent, RecordedEvent } from '../../domain/ports/event-store.ts';
import { migrate } from '../postgres/migrate.ts';
import { eventStoreMigrations } from './postgres-schema.ts';
import { pollingSubscription } from './subscription.ts';
import { meetsExpectation } from './expected-revision.ts';

const CHANNEL = 'custodian_events';

interface Row {
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

const toRecorded = (r: Row): RecordedEvent => ({
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

const COLUMNS = `position, stream, revision, event_id, type, schema_version, data, metadata,
  (extract(epoch from recorded_at) * 1000)::bigint AS recorded_ms`;

/**
 * Moves the stream's revision as the expectation allows, in one statement, so the row lock
 * it takes orders concurrent appenders of the same stream. Answers the first revision to
 * write, or null when the expectation fails.
 */
const claimRevisions = async (tx: pg.PoolClient, stream: string, n: number, expected: ExpectedRevision): Promise<number | null> => {
  let rows: { revision: number }[];
  if (expected === 'no_stream') {
    ({ rows } = await tx.query('INSERT INTO custodian_streams (stream, revision) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING revision', [stream, n - 1]));
  } else if (expected === 'any') {
    ({ rows } = await tx.query(
      `INSERT INTO custodian_streams (stream, revision) VALUES ($1, $2 - 1)
       ON CONFLICT (stream) DO UPDATE SET revision = custodian_streams.revision + $2 RETURNING revision`,
      [stream, n],
    ));
  } else if (expected === 'stream_exists') {
    ({ rows } = await tx.query('UPDATE custodian_streams SET revision = revision + $2 WHERE stream = $1 RETURNING revision', [stream, n]));
  } else {
    ({ rows } = await tx.query('UPDATE custodian_streams SET revision = revision + $2 WHERE stream = $1 AND revision = $3 RETURNING revision', [stream, n, expected]));
  }
  const last = rows[0]?.revision;
  return last === undefined ? null : last - n + 1;
};

export interface PostgresStoreOptions {
  /**
   * Runs inside an append's transaction after its positions are taken and its rows written,
   * before COMMIT. Tests use it to hold a transaction open and let a later one commit first.
   */
  readonly beforeCommit?: (stream: string, positions: readonly number[]) => Promise<void>;
}

export const postgresEventStore = async (pool: pg.Pool, options: PostgresStoreOptions = {}): Promise<EventStore> => {
  await migrate(pool, eventStoreMigrations);
  const listeners = new Set<() => void>();
  // One LISTEN connection, opened on first need; the promise is shared so that two callers
  // racing to open it do not leak a second pooled client.
  let listening: Promise<pg.PoolClient> | null = null;

  const ensureListening = () => {
    listening ??= (async () => {
      const client = await pool.connect();
      client.on('notification', () => listeners.forEach((l) => l()));
      client.on('error', () => undefined);
      await client.query(`LISTEN ${CHANNEL}`);
      return client;
    })();
    return listening;
  };

  // Takes the client to ask on: an appender that already holds a pooled client must not
  // wait for a second one (twenty conflicting appenders would starve a pool of ten).
  const actualRevision = async (stream: string, on: Pick<pg.PoolClient, 'query'> = pool): Promise<number | 'no_stream'> => {
    const { rows } = await on.query<{ revision: number }>('SELECT revision FROM custodian_streams WHERE stream = $1', [stream]);
    return rows[0]?.revision ?? 'no_stream';
  };

  const store: EventStore = {
    name: 'postgres',
    async append(stream, events, expected) {
      if (events.length === 0) {
        const actual = await actualRevision(stream);
        if (!meetsExpectation(expected, actual))
          return E.left({ kind: 'wrong_expected_revision', stream, expected, actual });
        return E.right({ nextExpectedRevision: actual === 'no_stream' ? -1 : actual, position: await store.headPosition() });
      }
      const tx = await pool.connect();
      try {
        await tx.query('BEGIN');
        // First statement of the transaction: the xid and the positions are taken together.
        const { rows: alloc } = await tx.query<{ first: number }>('SELECT custodian_allocate_positions($1) AS first', [events.length]);
        const firstPosition = Number(alloc[0]!.first);
        const firstRevision = await claimRevisions(tx, stream, events.length, expected);
        if (firstRevision === null) {
          await tx.query('ROLLBACK');
          return E.left({ kind: 'wrong_expected_revision', stream, expected, actual: await actualRevision(stream, tx) });
        }
        await tx.query(
          `INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata)
           SELECT p, pg_current_xact_id(), $1, r, id, t, v, d, m
           FROM unnest($2::bigint[], $3::bigint[], $4::uuid[], $5::text[], $6::int[], $7::jsonb[], $8::jsonb[]) AS x(p, r, id, t, v, d, m)`,
          [
            stream,
            events.map((_, i) => firstPosition + i),
            events.map((_, i) => firstRevision + i),
            events.map((e) => e.event_id),
            events.map((e) => e.type),
            events.map((e) => e.schema_version),
            events.map((e) => JSON.stringify(e.data)),
            events.map((e) => JSON.stringify(e.metadata)),
          ],
        );
        const lastPosition = firstPosition + events.length - 1;
        await tx.query('SELECT pg_notify($1, $2)', [CHANNEL, String(lastPosition)]);
        await options.beforeCommit?.(stream, events.map((_, i) => firstPosition + i));
        await tx.query('COMMIT');
        return E.right({ nextExpectedRevision: firstRevision + events.length - 1, position: lastPosition });
      } catch (error) {
        await tx.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        tx.release();
      }
    },
    async readStream(stream, fromRevision = 0) {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM custodian_events WHERE stream = $1 AND revision >= $2 ORDER BY revision`, [stream, fromRevision]);
      return rows.map(toRecorded);
    },
    async readAll(after, options) {
      const { rows } = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM custodian_events
         WHERE position > $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
         ORDER BY position LIMIT $2`,
        [after, options?.limit ?? 1000],
      );
      return rows.map(toRecorded);
    },
    subscribe(after, handler) {
      void ensureListening().catch(() => undefined);
      return pollingSubscription(store, after, handler);
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
