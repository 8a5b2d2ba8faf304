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
 * the calls were scanned too (checked). The key rows likewise: a subject's key was looked for
 * among every key of its tenant, and a refused unit's keys were taken back through a hash of
 * every key (5,000 rows read a batch, each, at 5,000 keys: measured by `idx_tup_fetch`); and
 * an audit line's event was found through a hash of every event of the log.
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

  it("checks a subject's key, and takes back a refused unit's keys, by index probes, whatever size the key tables had when the session planned", async () => {
    // A data subject's key row is found by its tenant and subject (one row a data subject), not
    // among every key of the tenant; a refused unit's new data keys by their ids (one row a
    // record), not by reading every data key into a hash.
    const kekOf = (subject: string) => Buffer.from(`kek of ${subject}`);
    const keys = async (db: pg.Pool | pg.PoolClient, from: number, to: number) => {
      const rows = 'FROM generate_series($1::int, $2::int) AS i';
      await db.query(`INSERT INTO custodian_subject_keys (tenant, subject, wrapped) SELECT 't', 'a-' || i, convert_to('kek of a-' || i, 'UTF8') ${rows}`, [
        from,
        to,
      ]);
      await db.query(
        `INSERT INTO custodian_data_keys (key_id, tenant, plugin, scope, record_key, owner, wrapped) SELECT gen_random_uuid(), 't', 'p', 's', 'k' || i, 'tenant', '\\x00' ${rows}`,
        [from, to],
      );
    };
    await keys(pool, 1, 20);
    await pool.query('ANALYZE custodian_subject_keys, custodian_data_keys');
    const client = await pool.connect();
    const fetched = async () =>
      (
        await client.query<{ relname: string; fetched: string }>(
          "SELECT relname, coalesce(idx_tup_fetch, 0)::text AS fetched FROM pg_stat_xact_user_tables WHERE relname IN ('custodian_subject_keys', 'custodian_data_keys') ORDER BY relname",
        )
      ).rows.map((r) => [r.relname, Number(r.fetched)] as const);
    try {
      await client.query('BEGIN');
      let last: (readonly [string, number])[] = [];
      for (let round = 0; round < 3; round++) {
        if (round === 1) await keys(client, 21, 5000);
        // The subject sorts after every other of the tenant's.
        const subject = 'z-subject';
        if (round === 0) await client.query("INSERT INTO custodian_subject_keys (tenant, subject, wrapped) VALUES ('t', $1, $2)", [subject, kekOf(subject)]);
        const dataKey = (record: string) => ({
          kind: 'data_key_made' as const,
          id: record,
          row: [randomUUID(), 't', 'p', 's', record, `subject:${subject}`, Buffer.from('wrapped'), kekOf(subject)],
        });
        const gone = randomUUID();
        const units = [
          { stream: `s:${randomUUID()}`, rows: [dataKey(`new-${round}`)] },
          // A key it uses is gone: refused, its new keys taken back.
          {
            stream: `s:${randomUUID()}`,
            rows: [
              { kind: 'data_key_used' as const, id: gone, row: [gone] },
              { kind: 'subject_key_made' as const, id: `t\nnew-${round}`, row: ['t', `new-${round}`, kekOf(`new-${round}`)] },
              dataKey(`refused-${round}`),
            ],
          },
        ].map((u) => ({ guard: null, after: null, watched: false, unmoved: [], expected: 'no_stream' as const, events: [ev()], lines: [], ...u }));
        const before = await fetched();
        const { rows } = await client.query<CommitRow>(COMMIT_CALL, commitParams([], units));
        expect(rows.map((r) => r.verdict)).toEqual(['committed', 'row_taken']);
        const after = await fetched();
        last = after.map(([t, n], i) => [t, n - (before[i]?.[1] ?? 0)] as const);
      }
      // A handful of rows each (the subject's key, the keys probed), not thousands.
      expect(last.map(([t, n]) => [t, n <= 4 ? 'few' : n])).toEqual([
        ['custodian_data_keys', 'few'],
        ['custodian_subject_keys', 'few'],
      ]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('places audit lines by probing their events, whatever size the log had when the session planned', async () => {
    // A line takes its event's recorded time and position: a join planned while the log was
    // small reads every event into a hash, on every batch with a line.
    const client = await pool.connect();
    const fetched = async () =>
      Number(
        (await client.query<{ n: string }>("SELECT coalesce(idx_tup_fetch, 0)::text AS n FROM pg_stat_xact_user_tables WHERE relname = 'custodian_events'"))
          .rows[0]?.n ?? 0,
      );
    try {
      await client.query('BEGIN');
      let read = 0;
      for (let round = 0; round < 3; round++) {
        if (round === 1)
          await client.query(
            `WITH p AS (SELECT custodian_allocate_positions(5000) AS first)
             INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata)
             SELECT p.first + i - 1, pg_current_xact_id(), 'grown-log', i - 1, gen_random_uuid(), 'Tested', 1, '{}', '{}' FROM p, generate_series(1, 5000) AS i`,
          );
        const line = { event: 0, tenant: 't', kind: 'k', job: null, subject: null, epoch: null, record_refs: [], head: '{"at":', mid: ',"seq":', tail: '}' };
        const unit = {
          guard: null,
          after: null,
          watched: false,
          unmoved: [],
          stream: `s:${randomUUID()}`,
          expected: 'no_stream' as const,
          events: [ev()],
          rows: [],
          lines: [line],
        };
        const before = await fetched();
        const { rows } = await client.query<CommitRow>(COMMIT_CALL, commitParams([], [unit]));
        expect(rows.map((r) => r.verdict)).toEqual(['committed']);
        read = (await fetched()) - before;
      }
      expect(read).toBeLessThanOrEqual(2);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
