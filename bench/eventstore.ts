import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { postgresEventStore } from '../adapters/eventstore/postgres.ts';
import { fmt, measure, row } from './harness.ts';

/**
 * Event-store appends against the floor they stand on: raw single-row INSERTs into a plain
 * table, same server, same concurrency, measured in the same run.
 */
export const benchEventStore = async (pool: pg.Pool, total: number) => {
  await pool.query('CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)');
  const store = await postgresEventStore(pool);
  const data = { note: 'x'.repeat(200), n: 1 };
  console.log('\nEvent store append (1 event) vs raw PostgreSQL single-row INSERT');
  console.log(row(['clients', 'raw ops/s', 'append ops/s', 'ratio', 'raw p50 ms', 'app p50 ms', 'raw p99 ms', 'app p99 ms']));
  for (const clients of [1, 8, 32]) {
    const raw = await measure(clients, total, async (c) => {
      await pool.query('INSERT INTO bench_raw (stream, data) VALUES ($1, $2)', [`raw-${c}`, JSON.stringify(data)]);
    });
    const run = randomUUID();
    const revisions = new Map<number, number | 'no_stream'>();
    const appended = await measure(clients, total, async (c) => {
      const r = await store.append(`bench:${run}:${c}`, [{ event_id: randomUUID(), type: 'BenchEvent', schema_version: 1, data, metadata: { tenant: 'bench', causation_id: null, correlation_id: null } }], revisions.get(c) ?? 'no_stream');
      if (E.isLeft(r)) throw new Error('unexpected conflict in bench');
      revisions.set(c, r.right.nextExpectedRevision);
    });
    console.log(row([clients, fmt(raw.perSecond, 0), fmt(appended.perSecond, 0), fmt(appended.perSecond / raw.perSecond, 2), fmt(raw.p50ms, 2), fmt(appended.p50ms, 2), fmt(raw.p99ms, 2), fmt(appended.p99ms, 2)]));
  }
  await store.close();
};
