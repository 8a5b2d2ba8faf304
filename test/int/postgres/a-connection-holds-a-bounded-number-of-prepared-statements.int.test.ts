import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { MAX_PREPARED_TEXTS, preparedTexts } from '../../../adapters/postgres/prepared.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import { freshDatabase } from '../../support/database.ts';

/*
 * Every parameterised read-model query runs as a named prepared statement, and a named
 * statement stays prepared on its connection (and its name in the process) for good. Texts
 * built from request values — a list's limit was spelled into its text — made one more per
 * value, without bound. Past a bound, a new text runs unnamed.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await freshDatabase();
  // One connection: the prepared statements counted are those of the connection every query ran on.
  pool = createPool(db.url, 1);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe('a connection holds a bounded number of prepared statements', () => {
  it('given more distinct texts than the bound, then the connection and the process prepare at most the bound, and every query answers', async () => {
    const sql = postgresReadModelStore(pool);
    const texts = MAX_PREPARED_TEXTS + 100;
    for (let i = 0; i < texts; i++) {
      const { rows } = await sql.query<{ n: number }>(`SELECT $1::int + ${i} AS n`, [1]);
      expect(rows[0]!.n).toBe(1 + i);
    }
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM pg_prepared_statements');
    expect(Number(rows[0]!.n)).toBeLessThanOrEqual(MAX_PREPARED_TEXTS);
    expect(preparedTexts()).toHaveLength(MAX_PREPARED_TEXTS);
  });
});
