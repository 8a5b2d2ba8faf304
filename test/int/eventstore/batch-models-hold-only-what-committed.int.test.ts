import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent } from '../../support/events.ts';

/**
 * A batch's inline models are sent in its commit's one statement, before anyone knows which
 * units commit: each writes only the units the statement's `committed` names. These tests hold
 * what that must never change: the models hold exactly the events that committed, whatever the
 * batch met.
 */
const ev = () => testEvent('Modelled');

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 8);
  await pool.query('CREATE TABLE t_inline_model (event_id uuid PRIMARY KEY)');
  store = await postgresEventStore(pool, {
    inline: {
      handles: (type) => type === 'Modelled',
      async fragments(events) {
        return [
          {
            text: `INSERT INTO t_inline_model (event_id) SELECT x.id FROM unnest($1::uuid[], $2::int[]) AS x(id, unit)
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

/**
 * The log's events on the streams given and the model's rows of them, as `position stream
 * revision` lines, and how many model rows name no event of the log at all.
 */
const modelAndLog = async (streams: readonly string[]) => {
  const lines = async (join: string) =>
    (
      await pool.query<{ line: string }>(
        `SELECT position || ' ' || stream || ' ' || revision AS line FROM custodian_events e ${join} WHERE stream = ANY($1::text[]) ORDER BY position`,
        [streams],
      )
    ).rows.map((r) => r.line);
  const { rows } = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM t_inline_model m WHERE NOT EXISTS (SELECT 1 FROM custodian_events e WHERE e.event_id = m.event_id)',
  );
  return { model: await lines('JOIN t_inline_model USING (event_id)'), log: await lines(''), strays: rows[0]!.n };
};

describe('a batch writes its inline models for the units that committed, and only for them', () => {
  it('given appends that all meet their revisions, then the model holds each at the position and revision its answer gave', async () => {
    const streams = Array.from({ length: 12 }, () => `modelled:${randomUUID()}`);
    const first = await Promise.all(streams.map((s) => store.append(s, [ev(), ev()], 'no_stream')));
    const second = await Promise.all(streams.map((s) => store.append(s, [ev()], 1)));
    expect([...first, ...second].every(E.isRight)).toBe(true);
    const { model, log, strays } = await modelAndLog(streams);
    expect(strays).toBe(0);
    expect(log).toHaveLength(36);
    expect(model).toEqual(log);
    for (const [i, a] of second.entries()) if (E.isRight(a)) expect(log).toContain(`${a.right.position} ${streams[i]} 2`);
  });

  it('given a batch in which some appends meet another revision, then the model holds only the appends that committed', async () => {
    const contended = `contended:${randomUUID()}`;
    const own = Array.from({ length: 8 }, () => `own:${randomUUID()}`);
    const answers = await Promise.all([
      ...own.slice(0, 4).map((s) => store.append(s, [ev()], 'no_stream')),
      // Six appends decided on an empty stream: one commits, five meet its revision.
      ...Array.from({ length: 6 }, () => store.append(contended, [ev(), ev()], 'no_stream')),
      ...own.slice(4).map((s) => store.append(s, [ev()], 'no_stream')),
    ]);
    expect(answers.filter(E.isLeft)).toHaveLength(5);
    const { model, log, strays } = await modelAndLog([contended, ...own]);
    expect(strays).toBe(0);
    expect(log).toHaveLength(8 + 2);
    expect(model).toEqual(log);
  });

  it('given a batch in which one append fails in its model, then no model row of the batch is left by the attempt that failed', async () => {
    const streams = Array.from({ length: 6 }, () => `clash:${randomUUID()}`);
    const events = streams.map(() => ev());
    // A model row already holding one event's id makes the batch's model insert fail on the key.
    await pool.query('INSERT INTO t_inline_model (event_id) VALUES ($1)', [events[3]!.event_id]);
    const results = await Promise.allSettled(streams.map((s, i) => store.append(s, [events[i]!], 'no_stream')));
    const { model, log, strays } = await modelAndLog(streams);
    // Whatever was refused wrote nothing; whatever was answered is in the log and the model alike.
    expect(model).toEqual(log);
    // The squatter's event was refused (its row is the one stray); the others committed, alone if need be.
    expect(strays).toBe(1);
    expect(results[3]!.status).toBe('rejected');
    expect(log).toHaveLength(5);
    expect(log).toHaveLength(results.filter((r) => r.status === 'fulfilled' && E.isRight(r.value)).length);
  });
});
