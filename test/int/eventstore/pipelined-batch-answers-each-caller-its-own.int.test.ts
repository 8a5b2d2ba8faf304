import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';

/**
 * A batch sends its queries without waiting (pg's pipeline mode). When one
 * of them fails, the ones sent after it are still to be answered: the client must not leave
 * pipeline mode (nor send ROLLBACK, nor go back to the pool) before they are, or their answers
 * land on the queries sent next — a caller answered with another's rows or error, a pooled
 * client left answering out of step. The rule: every caller is answered exactly what the
 * step-by-step path answers it (a failing statement its own error, each other its own rows).
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  // One connection: the client a broken batch leaves behind is the one every next query gets.
  pool = createPool(db.url, 1);
  store = await postgresEventStore(pool, {});
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

const outcome = (r: PromiseSettledResult<unknown>) =>
  r.status === 'fulfilled' ? { rows: r.value } : { code: (r.reason as { code?: string }).code ?? String(r.reason) };

describe('a batch whose statement fails mid-pipeline', () => {
  it('given a failing statement queued before many others, when their batch is written, then each caller gets its own answer and the client answers in step', async () => {
    for (let round = 0; round < 12; round++) {
      // The first statement commits alone; the ones queued while it runs share the next batch.
      const lead = store.inBatch('SELECT pg_sleep(0.05)', []);
      const failing = store.inBatch('SELECT 1 / (0 * $1::int)', [1]);
      const rest = Array.from({ length: 200 }, (_, i) => store.inBatch<{ n: number }>('SELECT $1::int AS n', [i]));
      const [, failed, ...others] = await Promise.allSettled([lead, failing, ...rest]);
      expect({ round, failed: outcome(failed!) }).toEqual({ round, failed: { code: '22012' } });
      expect({ round, others: others.map(outcome) }).toEqual({ round, others: rest.map((_, i) => ({ rows: [{ n: i }] })) });
      // The pooled client answers the next query with its own rows.
      expect((await pool.query<{ x: number }>('SELECT $1::int AS x', [round])).rows).toEqual([{ x: round }]);
    }
  }, 60_000);
});
