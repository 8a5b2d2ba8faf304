import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * A jsonb value holds at most 256 MB (268,435,455 bytes), whatever the sum of its parts; each
 * event's data is one jsonb value in the log. An append whose events together pass that size —
 * an import loads one scope's every version in one append, up to 256 MiB of export — commits
 * when each event fits, as it did when each event's data was its own parameter: the batch's
 * document carries no event's data.
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 2);
  store = await postgresEventStore(pool, {});
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

describe('an append past 256 MB in all', () => {
  it('commits when each of its events fits one jsonb value', async () => {
    // 33 events of 8.2 MB: 270.6 MB together, past the limit; each a thirtieth of it.
    const blob = 'x'.repeat(8_200_000);
    const events = Array.from({ length: 33 }, (_, i) => ev('Tested', { i, blob }));
    const appended = await store.append('big:1', events, 'no_stream');
    expect(appended).toEqual(E.right(expect.objectContaining({ nextExpectedRevision: 32 })));
    const { rows } = await pool.query<{ n: number; bytes: string; first: number }>(
      "SELECT count(*)::int AS n, sum(octet_length(data->>'blob'))::text AS bytes, min((data->>'i')::int) AS first FROM custodian_events WHERE stream = 'big:1'",
    );
    expect(rows[0]).toEqual({ n: 33, bytes: String(33 * 8_200_000), first: 0 });
  });
});
