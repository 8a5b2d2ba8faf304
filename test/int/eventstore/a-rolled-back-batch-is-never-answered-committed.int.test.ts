import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * PostgreSQL answers the COMMIT of a transaction that an error aborted with `ROLLBACK`, not with
 * an error. The group committer decides that a batch committed from that answer and its
 * statements', never from part of them: a batch whose inline model fails in the database while
 * statements ride with it (BEGIN, its statement, theirs and COMMIT in one round trip) answers
 * none of its appends committed, and each of them, decided alone, gets its own answer.
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 4);
  store = await postgresEventStore(pool, {
    inline: {
      handles: (type) => type === 'Failing',
      // The model's statement fails in the database (a division by zero) for the units that committed.
      fragments: async (events) => [
        {
          text: `INSERT INTO t_never (n) SELECT 1 / 0 FROM unnest($1::int[]) AS x(unit) WHERE x.unit IN (SELECT unit FROM committed)`,
          params: [events.map((e) => e.unit)],
        },
      ],
    },
  });
  await pool.query('CREATE TABLE t_never (n int)');
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

describe('a batch whose COMMIT answered ROLLBACK', () => {
  it('answers none of its appends committed, and the others beside it commit', async () => {
    const [failing, plain] = [`failing:${randomUUID()}`, `plain:${randomUUID()}`];
    // The first statement starts a batch alone; the rest queue into the next one, together.
    const [, a, counted, b] = await Promise.allSettled([
      store.inBatch('SELECT 1', []),
      store.append(failing, [ev('Failing')], 'no_stream'),
      store.inBatch<{ n: number }>('SELECT 7 AS n', []),
      store.append(plain, [ev('Plain')], 'no_stream'),
    ]);
    const committed = a.status === 'fulfilled' && E.isRight(a.value);
    expect({ committed, written: (await store.readStream(failing)).length }).toEqual({ committed: false, written: 0 });
    expect(counted).toEqual({ status: 'fulfilled', value: [{ n: 7 }] });
    expect(b.status === 'fulfilled' && E.isRight(b.value)).toBe(true);
    expect(await store.readStream(plain)).toHaveLength(1);
  });
});
