import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import type { RecordedEvent } from '../../../domain/ports/event-store.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent } from '../../support/events.ts';

/**
 * A batch is first written as if every append met its expected revision (its inline models
 * sent with the append, without waiting for its answer) and committed only when it did. These
 * tests hold what that must never change: the models hold exactly the events that committed,
 * at their positions, whatever the batch met.
 */
const ev = () => testEvent('Modelled');

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 8);
  await pool.query('CREATE TABLE t_inline_model (position bigint PRIMARY KEY, stream text NOT NULL, revision bigint NOT NULL)');
  store = await postgresEventStore(pool, {
    inline: {
      handles: (type) => type === 'Modelled',
      // Answered as the statement sent with COMMIT, as fused models are.
      async apply(_sql, events: readonly RecordedEvent[]) {
        return {
          text: 'INSERT INTO t_inline_model (position, stream, revision) SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])',
          params: [events.map((e) => e.position), events.map((e) => e.stream), events.map((e) => e.revision)],
        };
      },
    },
  });
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

/** The model's rows and the log's events, as `position stream revision` lines, for the streams given. */
const modelAndLog = async (streams: readonly string[]) => {
  const lines = async (table: string) =>
    (
      await pool.query<{ line: string }>(
        `SELECT position || ' ' || stream || ' ' || revision AS line FROM ${table} WHERE stream = ANY($1::text[]) ORDER BY position`,
        [streams],
      )
    ).rows.map((r) => r.line);
  return { model: await lines('t_inline_model'), log: await lines('custodian_events') };
};

describe('a batch writes its inline models for the units that committed, and only for them', () => {
  it('given appends that all meet their revisions, then the model holds each at the position and revision its answer gave', async () => {
    const streams = Array.from({ length: 12 }, () => `modelled:${randomUUID()}`);
    const first = await Promise.all(streams.map((s) => store.append(s, [ev(), ev()], 'no_stream')));
    const second = await Promise.all(streams.map((s) => store.append(s, [ev()], 1)));
    expect([...first, ...second].every(E.isRight)).toBe(true);
    const { model, log } = await modelAndLog(streams);
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
    const { model, log } = await modelAndLog([contended, ...own]);
    expect(log).toHaveLength(8 + 2);
    expect(model).toEqual(log);
  });

  it('given a batch in which one append fails in its model, then no model row of the batch is left by the attempt that failed', async () => {
    const streams = Array.from({ length: 6 }, () => `clash:${randomUUID()}`);
    // A model row already where this batch's next event would go makes its insert fail on the key.
    const next = Number((await pool.query<{ p: string }>('SELECT last_value + 1 AS p FROM custodian_event_position')).rows[0]!.p);
    await pool.query('INSERT INTO t_inline_model (position, stream, revision) SELECT p, $2, 0 FROM generate_series($1::bigint, $1::bigint + 40) AS p', [
      next,
      'squatter',
    ]);
    const results = await Promise.allSettled(streams.map((s) => store.append(s, [ev()], 'no_stream')));
    const { model, log } = await modelAndLog(streams);
    // Whatever was refused wrote nothing; whatever was answered is in the log and the model alike.
    expect(model).toEqual(log);
    expect(log).toHaveLength(results.filter((r) => r.status === 'fulfilled' && E.isRight(r.value)).length);
  });
});
