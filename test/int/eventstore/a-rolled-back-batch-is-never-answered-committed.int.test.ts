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
 * an error. The group committer decides that a batch committed from that answer, never from
 * the absence of an error it was told about: an inline model that caught its own failed
 * statement (a duplicate ignored in JavaScript, say) must not turn a batch that rolled back
 * into appends answered committed and lost.
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 4);
  store = await postgresEventStore(pool, {
    inline: {
      handles: (type) => type === 'Swallowed',
      async apply(sql) {
        // The mistake: the statement failed, the transaction is aborted, and the error is dropped.
        await sql.query('SELECT 1 / 0').catch(() => undefined);
        return null;
      },
    },
  });
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

describe('a batch whose COMMIT answered ROLLBACK', () => {
  it('answers none of its appends committed, and the others beside it commit', async () => {
    const [swallowed, plain] = [`swallowed:${randomUUID()}`, `plain:${randomUUID()}`];
    const [a, b] = await Promise.allSettled([store.append(swallowed, [ev('Swallowed')], 'no_stream'), store.append(plain, [ev('Plain')], 'no_stream')]);
    const committed = a.status === 'fulfilled' && E.isRight(a.value);
    expect({ committed, written: (await store.readStream(swallowed)).length }).toEqual({ committed: false, written: 0 });
    expect(b.status === 'fulfilled' && E.isRight(b.value)).toBe(true);
    expect(await store.readStream(plain)).toHaveLength(1);
  });
});
