import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';
import type { AuditLine } from '../../../domain/audit/lines.ts';

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

/** Until a statement of this database waits on a lock. */
const waiting = async () => {
  for (;;) {
    const { rows } = await pool.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    if (rows.length > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
};

/** An audit line of the unit's one event, for `tenant`. */
const lineFor = (tenant: string): AuditLine => ({
  event: 0,
  tenant,
  kind: 'job_started',
  job: null,
  subject: null,
  epoch: null,
  record_refs: [],
  head: '{"at":',
  mid: ',"seq":',
  tail: '}',
});

describe('a batch that waits after its first write', () => {
  it('took its positions first: an append that took positions while the batch waited is never passed over by a reader', async () => {
    const holder = await pool.connect();
    const other = await pool.connect();
    try {
      const id = randomUUID();
      const [fresh, held] = [`a-${id}`, `b-${id}`];
      const mine = `mine:${randomUUID()}`;
      const theirs = `theirs:${randomUUID()}`;
      // Two tenants' lines: the first tenant's counter row is new (the batch's first write, its
      // xid), the second's exists and is held by an open transaction: the batch waits on it.
      await pool.query('INSERT INTO custodian_audit_sizes (tenant, size) VALUES ($1, 0)', [held]);
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM custodian_audit_sizes WHERE tenant = $1 FOR UPDATE', [held]);
      const appended = store.append(mine, [ev()], 'no_stream', { audit: [lineFor(fresh), lineFor(held)] });
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
      await holder.query('COMMIT');
      expect(E.isRight(await appended)).toBe(true);

      const before = await store.readAll(0);
      await other.query('COMMIT');
      const after = await store.readAll(before.at(-1)?.position ?? 0);
      const read = [...before, ...after].map((e) => e.stream);
      expect(read).toContain(mine);
      expect(read).toContain(theirs);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await other.query('ROLLBACK').catch(() => undefined);
      other.release();
      holder.release();
    }
  });
});
