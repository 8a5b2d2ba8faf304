import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMIT_CALL, commitParams, type CommitRow } from '../../../adapters/eventstore/postgres-group-commit.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import type { AdmissionGuard } from '../../../domain/ports/admission-guard.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * `custodian_commit` checks a guard by index lookups — its request key in `rm_request_keys`, its
 * job's and tenant's heads in `custodian_streams`, its call's count — never by reading a whole
 * table, though each grows by a row a put or a call. Its statements keep generic plans, made once
 * a session: a plan made while a table was small, and kept while it grew, scanned it whole. The
 * request key check, written `key IS NULL OR NOT EXISTS (…)`, was planned as a hashed subplan:
 * a sequential scan of every key ever written, once a batch (measured: 0.77 ms a batch at 4,000
 * keys, the largest part of PostgreSQL's CPU per put). PostgreSQL counts the transaction's scans
 * in `pg_stat_xact_user_tables`. Without `enable_seqscan = off` on the function, the streams and
 * the calls were scanned too (checked).
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 2);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/** The tables a guard reads, grown by rows `<from>` to `<to>`: request keys `rk-<n>`, streams and calls. */
const grow = async (db: pg.Pool | pg.PoolClient, from: number, to: number) => {
  const rows = 'FROM generate_series($1::int, $2::int) AS i';
  await db.query(`INSERT INTO rm_request_keys (tenant, request_key, plugin, scope, key, version) SELECT 't', 'rk-' || i, 'p', 's', 'k' || i, 1 ${rows}`, [
    from,
    to,
  ]);
  await db.query(`INSERT INTO custodian_streams (stream, revision) SELECT 'grown:' || i, 0 ${rows}`, [from, to]);
  await db.query(`INSERT INTO custodian_call_requests (call, n) SELECT 'grown:' || i, 0 ${rows}`, [from, to]);
};
const GROWN = ['rm_request_keys', 'custodian_streams', 'custodian_call_requests'];

describe('the commit reads growing tables by their indexes', () => {
  it('checks a guard by index lookups, whatever size the tables had when the session planned', async () => {
    // The session plans the check while the table is small and its statistics say so, and keeps
    // that plan while the table grows: as the service's sessions do between two ANALYZEs.
    await grow(pool, 1, 100);
    await pool.query(`ANALYZE ${GROWN.join(', ')}`);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (let round = 0; round < 3; round++) {
        if (round === 1) await grow(client, 101, 5000);
        const call = randomUUID();
        const jobStream = `job:t:${call}`;
        await client.query('INSERT INTO custodian_call_requests (call, n) VALUES ($1, 0)', [call]);
        await client.query('INSERT INTO custodian_streams (stream, revision) VALUES ($1, 0), ($2, 0) ON CONFLICT DO NOTHING', [jobStream, 'tenant:t']);
        const guards: AdmissionGuard[] = [1, 2, 3].map((index) => ({
          call,
          index,
          tenant: 't',
          jobStream,
          jobRevision: 0,
          blockRevisions: [],
          marks: '',
          tenantStream: 'tenant:t',
          tenantRevision: 0,
          // Two new keys, and one already written: its guard fails.
          requestKey: index === 3 ? `rk-${round + 1}` : `new-${call}-${index}`,
        }));
        const units = guards.map((_, i) => ({
          guard: i + 1,
          after: null,
          watched: true,
          unmoved: [],
          stream: `s:${randomUUID()}`,
          expected: 'no_stream' as const,
          events: [ev()],
          rows: [],
          lines: [],
        }));
        const { rows } = await client.query<CommitRow>(COMMIT_CALL, commitParams(guards, units));
        expect(rows.filter((r) => r.kind === 'guard').map((r) => r.verdict)).toEqual(['held', 'held', 'failed']);
      }
      const { rows } = await client.query<{ relname: string; seq_scan: string; idx_scan: string }>(
        'SELECT relname, seq_scan::text, coalesce(idx_scan, 0)::text AS idx_scan FROM pg_stat_xact_user_tables WHERE relname = ANY($1) ORDER BY relname',
        [GROWN],
      );
      expect(rows.map((r) => [r.relname, r.seq_scan])).toEqual([...GROWN].sort().map((t) => [t, '0']));
      expect(rows.every((r) => Number(r.idx_scan) > 0)).toBe(true);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
