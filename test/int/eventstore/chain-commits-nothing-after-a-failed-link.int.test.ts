import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BATCH } from '../../../adapters/eventstore/postgres-group-commit.ts';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import type { AppendResult } from '../../../domain/ports/event-store.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * A chain (`appendChain`) commits no unit after one that did not commit, however the group
 * committer cuts its queue into batches (at most 256 items each): a chain whose first unit ends
 * one batch and whose others start the next is judged as if it were in one.
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 8);
  store = await postgresEventStore(pool, {});
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

const outcome = (r: AppendResult) => (E.isRight(r) ? 'committed' : 'conflict');

describe('a chain cut across two batches', () => {
  it.each([
    ['its first unit alone at the end of a batch', 1],
    ['its first two units at the end of a batch', 2],
  ])('commits nothing after a unit that failed, with %s', async (_, inFirstBatch) => {
    // The stream is at revision 2: the chain was decided at revision 0, so its first unit
    // conflicts — and its last unit expects exactly the revision the stream is at.
    const s = `chain:${randomUUID()}`;
    expect(E.isRight(await store.append(s, [ev(), ev(), ev()], 'no_stream'))).toBe(true);

    // The first append is taken into a batch at once; the rest queue behind it, so the next
    // batch holds the fillers and the chain's first units, and the one after it the rest.
    const lead = store.append(`lead:${randomUUID()}`, [ev()], 'no_stream');
    const fillers = Array.from({ length: MAX_BATCH - inFirstBatch }, () => store.append(`filler:${randomUUID()}`, [ev()], 'no_stream'));
    const chain = store.appendChain([
      { stream: s, events: [ev()], expected: 0 },
      { stream: s, events: [ev()], expected: 1 },
      { stream: s, events: [ev()], expected: 2 },
    ]);
    expect(E.isRight(await lead)).toBe(true);
    expect((await Promise.all(fillers)).every(E.isRight)).toBe(true);

    expect((await Promise.all(chain)).map(outcome)).toEqual(['conflict', 'conflict', 'conflict']);
    expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0, 1, 2]);
  });
});
