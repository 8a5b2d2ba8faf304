import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * A group-commit transaction that writes before it appends (a request's count, a guard's rows)
 * takes its positions, and so its xid, first. Were its xid taken by that earlier write, an
 * appender taking positions meanwhile would hold lower positions under a newer xid; the batch,
 * committing first, would be readable below xmin, and a reader that went on from it would pass
 * over the appender's events for good.
 */
const LOCK = 4242;

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  // It holds transactions open on purpose.
  db = await freshDatabase({ blocking: true });
  pool = createPool(db.url, 8);
  store = await postgresEventStore(pool, {});
  await pool.query('CREATE TABLE probe_writes (id text PRIMARY KEY)');
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

const waiting = async () => {
  for (;;) {
    const { rows } = await pool.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted", [LOCK]);
    if (rows.length > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
};

describe('a batch that writes before its append', () => {
  it('takes its positions first: an append that took positions while the batch waited is never passed over by a reader', async () => {
    const holder = await pool.connect();
    const other = await pool.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [LOCK]);
      const mine = `mine:${randomUUID()}`;
      const theirs = `theirs:${randomUUID()}`;
      // The first item goes alone; the next ones make one batch: a write, a wait, an append.
      const lead = store.inBatch('SELECT 1', []);
      const wrote = store.inBatch(`INSERT INTO probe_writes VALUES ('${randomUUID()}')`, []);
      const waited = store.inBatch('SELECT pg_advisory_xact_lock($1::bigint)', [LOCK]);
      const appended = store.append(mine, [ev()], 'no_stream');
      await lead;
      await waiting();
      // Another appender takes positions and stays open while the batch commits.
      await other.query('BEGIN');
      // What an append does: positions first, then its rows, under its own xid.
      await other.query(
        `WITH p AS (SELECT custodian_allocate_positions(1) AS position), s AS (INSERT INTO custodian_streams VALUES ($1, 0))
         INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata)
         SELECT position, pg_current_xact_id(), $1, 0, $2, 'Tested', 1, '{}', '{}' FROM p`,
        [theirs, randomUUID()],
      );
      await holder.query('SELECT pg_advisory_unlock($1)', [LOCK]);
      await Promise.all([wrote, waited]);
      expect(E.isRight(await appended)).toBe(true);

      const before = await store.readAll(0);
      await other.query('COMMIT');
      const after = await store.readAll(before.at(-1)?.position ?? 0);
      const read = [...before, ...after].map((e) => e.stream);
      expect(read).toContain(mine);
      expect(read).toContain(theirs);
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      other.release();
      holder.release();
    }
  });
});
