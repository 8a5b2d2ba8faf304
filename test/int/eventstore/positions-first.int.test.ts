import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';
import { heldAppend } from '../../support/held-append.ts';

/**
 * A batch's statement takes its positions before it writes anything (and so before it has an
 * xid). Were its xid taken by an earlier write, an appender taking positions while the batch
 * waited would hold lower positions under a newer xid; the batch, committing first, would be
 * readable below xmin, and a reader that went on from it would pass over the appender's events
 * for good. Here the batch waits on a tenant's audit counter row, which it locks after its
 * positions and its first write (another tenant's new counter row).
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  // It holds transactions open on purpose.
  db = await freshDatabase({ blocking: true });
  pool = createPool(db.url, 8);
  store = await postgresEventStore(pool, {});
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

describe('a batch that waits after its first write', () => {
  it('took its positions first: an append that took positions while the batch waited is never passed over by a reader', async () => {
    const hold = await heldAppend(pool);
    const other = await pool.connect();
    try {
      const mine = `mine:${randomUUID()}`;
      const theirs = `theirs:${randomUUID()}`;
      // It waits on a tenant's audit counter row, after its positions and its first write.
      const appended = store.append(mine, [ev()], 'no_stream', hold.carries);
      await hold.waiting();
      // Another appender takes positions and stays open while the batch commits.
      await other.query('BEGIN');
      // What an append does: positions first, then its rows, under its own xid.
      await other.query(
        `WITH p AS (SELECT custodian_allocate_positions(1) AS position), s AS (INSERT INTO custodian_streams VALUES ($1, 0))
         INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata)
         SELECT position, pg_current_xact_id(), $1, 0, $2, 'Tested', 1, '{}', '{}' FROM p`,
        [theirs, randomUUID()],
      );
      await hold.release();
      expect(E.isRight(await appended)).toBe(true);

      const before = await store.readAll(0);
      await other.query('COMMIT');
      const after = await store.readAll(before.at(-1)?.position ?? 0);
      const read = [...before, ...after].map((e) => e.stream);
      expect(read).toContain(mine);
      expect(read).toContain(theirs);
    } finally {
      await hold.release();
      await other.query('ROLLBACK').catch(() => undefined);
      other.release();
    }
  });
});
