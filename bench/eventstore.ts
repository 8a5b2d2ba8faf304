import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { applySchema } from '../adapters/postgres/schema.ts';
import { postgresEventStore } from '../adapters/eventstore/postgres.ts';
import { openEmmett } from './emmett.ts';
import { fmt, measure, reportFailures, row, type Measured } from './harness.ts';
import { PER_OP_HEADERS, perOp, type Cost, type PgStats } from './pgstats.ts';

export const CLIENTS = [1, 8, 32] as const;

/** Baselines measured in this run, by client count, for the other sections' ratios. */
export interface Baselines {
  readonly raw: Map<number, Measured>;
  readonly emmett: Map<number, Measured>;
  emmettUnavailable: string | null;
}
export const newBaselines = (): Baselines => ({ raw: new Map(), emmett: new Map(), emmettUnavailable: null });

export const RAW_TABLE = 'CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)';
const data = { note: 'x'.repeat(200), n: 1 };

/** Raw single-row INSERTs: the floor every other figure is a ratio of. */
export const measureRaw = async (pool: pg.Pool, clients: number, total: number) =>
  measure(clients, total, async (c) => {
    await pool.query('INSERT INTO bench_raw (stream, data) VALUES ($1, $2)', [`raw-${c}`, JSON.stringify(data)]);
  });

const costRow = (what: string, clients: number, m: Measured, raw: Measured, cost: Cost) =>
  console.log(
    row([what, clients, fmt(m.perSecond, 0), fmt(m.perSecond / raw.perSecond, 2), fmt(m.p50ms, 2), fmt(m.p99ms, 2), ...perOp(cost, m.ops + failed(m))]),
  );
export const failed = (m: Measured) => [...m.failures.values()].reduce((a, b) => a + b, 0);

/**
 * Event-store appends against the floor they stand on: raw single-row INSERTs into a plain
 * table, our append, and Emmett's PostgreSQL appendToStream (on a database of its own), same
 * server, same concurrency, same op count, measured in the same run.
 */
export const benchEventStore = async (pool: pg.Pool, database: string, emmettUrl: string, stats: PgStats, total: number, baselines: Baselines) => {
  await pool.query(RAW_TABLE);
  await applySchema(pool);
  const store = await postgresEventStore(pool);
  const emmett = await openEmmett(emmettUrl);
  // Emmett's driver must not have changed how this process's own pools read int8 (see emmett.ts).
  if (typeof (await pool.query<{ n: unknown }>('SELECT 1::int8 AS n')).rows[0]!.n !== 'number') throw new Error('Emmett changed the process-wide int8 parser');
  if ('unavailable' in emmett) {
    baselines.emmettUnavailable = emmett.unavailable;
    console.log(`\nEmmett's PostgreSQL appendToStream: unavailable here — ${emmett.unavailable}`);
  } else stats.track(emmett.pool, new URL(emmettUrl).pathname.slice(1));
  console.log('\nRaw PostgreSQL single-row INSERT, our event-store append (1 event) and Emmett appendToStream (1 event)');
  console.log(row(['what', 'clients', 'ops/s', 'x raw', 'p50 ms', 'p99 ms', ...PER_OP_HEADERS]));
  try {
    for (const clients of CLIENTS) {
      let phase = await stats.begin(database);
      const raw = await measureRaw(pool, clients, total);
      costRow('raw insert', clients, raw, raw, await phase.end());
      reportFailures(`raw insert ×${clients}`, raw);
      baselines.raw.set(clients, raw);

      const run = randomUUID();
      const revisions = new Map<number, number | 'no_stream'>();
      phase = await stats.begin(database);
      const appended = await measure(clients, total, async (c) => {
        const r = await store.append(
          `bench:${run}:${c}`,
          [{ event_id: randomUUID(), type: 'BenchEvent', schema_version: 1, data, metadata: { tenant: 'bench', causation_id: null, correlation_id: null } }],
          revisions.get(c) ?? 'no_stream',
        );
        if (E.isLeft(r)) throw new Error('unexpected conflict in bench');
        revisions.set(c, r.right.nextExpectedRevision);
      });
      costRow('our append', clients, appended, raw, await phase.end());
      reportFailures(`our append ×${clients}`, appended);

      if (!('unavailable' in emmett)) {
        const emmettDb = new URL(emmettUrl).pathname.slice(1);
        phase = await stats.begin(emmettDb);
        const m = await measure(clients, total, (c) => emmett.append(`bench-${run}-${c}`, data));
        costRow('emmett', clients, m, raw, await phase.end());
        reportFailures(`emmett ×${clients}`, m);
        baselines.emmett.set(clients, m);
      }
    }
  } finally {
    await store.close();
    if (!('unavailable' in emmett)) {
      stats.untrack(emmett.pool);
      await emmett.close();
    }
  }
};
