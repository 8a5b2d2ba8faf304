import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;
/** The inline model: each event it reads, by id, with the transaction that wrote its row. */
const SEEN = 't_inline_seen';

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 8);
  await pool.query(`CREATE TABLE ${SEEN} (event_id uuid PRIMARY KEY, xid text NOT NULL)`);
  store = await postgresEventStore(pool, {
    inline: {
      handles: (type) => type === 'Projected' || type === 'Poison',
      async fragments(events) {
        if (events.some((e) => e.event.type === 'Poison')) throw new Error('poisoned inline projection');
        return [
          {
            text: `INSERT INTO ${SEEN} SELECT x.id, pg_current_xact_id()::text FROM unnest($1::uuid[], $2::int[]) AS x(id, unit)
                   WHERE x.unit IN (SELECT unit FROM committed)`,
            params: [events.map((e) => e.event.event_id), events.map((e) => e.unit)],
          },
        ];
      },
    },
  });
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

/** The model's row of the event at each position: its transaction, or none. */
const seenAt = async (positions: readonly number[]) =>
  new Map(
    (
      await pool.query<{ position: string; xid: string }>(
        `SELECT e.position, s.xid FROM custodian_events e JOIN ${SEEN} s USING (event_id) WHERE e.position = ANY($1::bigint[])`,
        [positions],
      )
    ).rows.map((r) => [Number(r.position), r.xid]),
  );

const txOf = async (positions: readonly number[]) =>
  (
    await pool.query<{ position: number; tx: string }>('SELECT position, tx_id::text AS tx FROM custodian_events WHERE position = ANY($1::bigint[])', [
      positions,
    ])
  ).rows;

describe('postgres group commit', () => {
  it('commits concurrent appends to many streams together, each checked against its own stream', async () => {
    const shared = `shared:${randomUUID()}`;
    const own = Array.from({ length: 30 }, () => `own:${randomUUID()}`);
    const answers = await Promise.all([
      ...own.map((s) => store.append(s, [ev(), ev()], 'no_stream')),
      // Five appends that all decided on an empty stream: one wins, four meet its revision.
      ...Array.from({ length: 5 }, () => store.append(shared, [ev()], 'no_stream')),
    ]);
    const mine = answers.slice(0, 30);
    const contended = answers.slice(30);
    expect(mine.every(E.isRight)).toBe(true);
    expect(contended.filter(E.isRight)).toHaveLength(1);
    const conflicts = contended.filter(E.isLeft).map((a) => a.left);
    expect(conflicts).toHaveLength(4);
    expect(conflicts.every((c) => c.kind === 'wrong_expected_revision' && c.actual === 0)).toBe(true);
    for (const s of own) expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0, 1]);
    expect(await store.readStream(shared)).toHaveLength(1);

    // The appends that queued behind the first share transactions: fewer commits than appends.
    const positions = mine.flatMap((a) => (E.isRight(a) ? [a.right.position] : []));
    const txs = new Set((await txOf(positions)).map((r) => r.tx));
    expect(txs.size).toBeLessThan(positions.length);
  });

  it('a loser decides again on the newer revision and appends, without failing the rest of its batch', async () => {
    const s = `retry:${randomUUID()}`;
    await store.append(s, [ev()], 'no_stream');
    const attempt = async (): Promise<number> => {
      for (;;) {
        const revision = (await store.readStream(s)).at(-1)!.revision;
        const appended = await store.append(s, [ev()], revision);
        if (E.isRight(appended)) return appended.right.nextExpectedRevision;
      }
    };
    const others = Array.from({ length: 10 }, () => store.append(`other:${randomUUID()}`, [ev()], 'any'));
    const revisions = await Promise.all(Array.from({ length: 8 }, attempt));
    expect([...revisions].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await Promise.all(others)).every(E.isRight)).toBe(true);
    expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('runs inline projections in the transaction that holds the events', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => store.append(`inline:${randomUUID()}`, [ev('Projected'), ev('Ignored')], 'no_stream')));
    const positions = answers.map((a) => (E.isRight(a) ? a.right.position - 1 : -1));
    const txs = new Map((await txOf(positions)).map((r) => [Number(r.position), r.tx]));
    const seen = await seenAt([...positions, ...positions.map((p) => p + 1)]);
    for (const p of positions) expect(seen.get(p)).toBe(txs.get(p));
    // Only the events the projections handle reach them.
    expect(positions.filter((p) => seen.has(p + 1))).toEqual([]);
  });

  it('an append whose inline projection fails writes nothing and fails alone', async () => {
    const head = (await pool.query<{ p: number }>('SELECT coalesce(max(position), 0) AS p FROM custodian_events')).rows[0]!.p;
    const poisoned = `poison:${randomUUID()}`;
    const results = await Promise.allSettled([
      ...Array.from({ length: 6 }, () => store.append(`fine:${randomUUID()}`, [ev('Projected')], 'no_stream')),
      store.append(poisoned, [ev('Poison')], 'no_stream'),
      ...Array.from({ length: 6 }, () => store.append(`fine:${randomUUID()}`, [ev('Projected')], 'no_stream')),
    ]);
    expect(results[6]!.status).toBe('rejected');
    const fine = results.filter((_, i) => i !== 6);
    expect(fine.every((r) => r.status === 'fulfilled' && E.isRight(r.value))).toBe(true);
    expect(await store.readStream(poisoned)).toEqual([]);
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM custodian_events WHERE position > $1', [head]);
    expect(rows[0]!.n).toBe(12);
  });
});
