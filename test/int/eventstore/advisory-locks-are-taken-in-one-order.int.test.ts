import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMIT_CALL, commitParams, type CommitRow, type CommitUnit } from '../../../adapters/eventstore/postgres-group-commit.ts';
import { WATCHED_STREAM_LOCK } from '../../../adapters/postgres/advisory-locks.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import type { ExpectedRevision, StreamAt } from '../../../domain/ports/event-store.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * `custodian_commit` takes every advisory lock of a batch in one pass, in the order of the lock's
 * key (the stream's hashtext), one lock a key. Two batches whose units cross — one appends to X
 * (watched) and was decided on Y, the other appends to Y (watched) and was decided on X — never
 * deadlock: one waits for the other, and the second sees what the first committed. Nor do two
 * batches that name two streams of one key in other places of their name order. Taken exclusive
 * first, then shared, each pass sorted by stream name, both deadlocked (40P01).
 *
 * Each batch also watches a gate stream that a third session holds, named to sort after the
 * stream it must hold first: both batches are stopped inside their locking until both wait,
 * whatever the scheduling, so a lock order that can cycle does.
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pools: pg.Pool[];

beforeAll(async () => {
  // It holds transactions open on purpose.
  db = await freshDatabase({ blocking: true });
  // Two instances of the service, and the gate's and the observer's session.
  pools = [createPool(db.url, 1), createPool(db.url, 1), createPool(db.url, 2)];
});
afterAll(async () => {
  for (const p of pools ?? []) await p.end();
  await db?.drop();
});

const unit = (stream: string, watched: boolean, unmoved: readonly StreamAt[] = [], expected: ExpectedRevision = 'no_stream'): CommitUnit => ({
  guard: null,
  after: null,
  watched,
  unmoved,
  stream,
  expected,
  events: [ev()],
  rows: [],
  lines: [],
});

/** A batch's verdicts in unit order, or the error its call failed with. */
type Outcome = { verdicts: string[] } | { error: string };

const call = (client: pg.PoolClient, units: readonly CommitUnit[]): Promise<Outcome> =>
  client.query<CommitRow>(COMMIT_CALL, commitParams([], units)).then(
    (r) => ({ verdicts: r.rows.filter((row) => row.kind === 'unit').map((row) => row.verdict) }),
    (e: { code?: string; message: string }) => ({ error: `${e.code ?? ''} ${e.message}` }),
  );

/**
 * Runs two batches at once, each in its own transaction on its own instance's pool, held until
 * both wait inside their locking (the gate streams, which they watch, are held meanwhile); then
 * commits the first that answers once the other waits for it, then the other. The outcomes, in
 * the order they committed.
 */
const race = async (batches: readonly (readonly CommitUnit[])[], gates: readonly string[]): Promise<{ first: Outcome; second: Outcome }> => {
  const [one, two, observer] = pools as [pg.Pool, pg.Pool, pg.Pool];
  const gate = await observer.connect();
  const sessions = [await one.connect(), await two.connect()];
  const pids = await Promise.all(sessions.map(async (s) => (await s.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
  const waiting = async (pid: number) => {
    for (;;) {
      const { rows } = await observer.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory'", [pid]);
      if (rows.length > 0) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  try {
    for (const g of gates) await gate.query('SELECT pg_advisory_lock($1, hashtext($2))', [WATCHED_STREAM_LOCK, g]);
    for (const s of sessions) await s.query('BEGIN');
    const calls = sessions.map((s, i) => call(s, batches[i]!).then((outcome) => ({ i, outcome })));
    await Promise.all(pids.map(waiting));
    await gate.query('SELECT pg_advisory_unlock_all()');

    // The first call to answer commits once the other, behind its locks, waits for it.
    const first = await Promise.race(calls);
    const other = 1 - first.i;
    if ('verdicts' in first.outcome) await waiting(pids[other]!);
    await sessions[first.i]!.query('verdicts' in first.outcome ? 'COMMIT' : 'ROLLBACK');
    const second = await calls[other]!;
    await sessions[other]!.query('verdicts' in second.outcome ? 'COMMIT' : 'ROLLBACK');
    return { first: first.outcome, second: second.outcome };
  } finally {
    for (const s of sessions) {
      await s.query('ROLLBACK').catch(() => undefined);
      s.release();
    }
    await gate.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
    gate.release();
  }
};

describe('the advisory locks of a batch', () => {
  it('are taken in one order: two batches whose units cross (X watched and decided on Y, Y watched and decided on X) never deadlock, and the second sees the first', async () => {
    const id = randomUUID();
    const [x, y] = [`a-crossed-x:${id}`, `a-crossed-y:${id}`];
    // Each gate sorts after its batch's crossed stream: taken exclusive first and shared after,
    // each batch would hold its crossed stream and wait at its gate.
    const gates = [`b-gate-x:${id}`, `b-gate-y:${id}`];
    const outcomes = await race(
      [
        [unit(x, true), unit(gates[0]!, true), unit(`decided-on-y:${id}`, false, [{ stream: y, revision: 'no_stream' }])],
        [unit(y, true), unit(gates[1]!, true), unit(`decided-on-x:${id}`, false, [{ stream: x, revision: 'no_stream' }])],
      ],
      gates,
    );
    expect(outcomes).toEqual({
      first: { verdicts: ['committed', 'committed', 'committed'] },
      second: { verdicts: ['committed', 'committed', 'conflict'] },
    });
  });

  it('are ordered by their key, not the stream name: two streams whose keys collide, listed in other name orders by two batches, never deadlock', async () => {
    // Two stream names, one starting "a:" and one "z:", with one hashtext (one lock key).
    const { rows } = await pools[2]!.query<{ low: string; high: string }>(
      `SELECT min(s) FILTER (WHERE s LIKE 'a:%') AS low, min(s) FILTER (WHERE s LIKE 'z:%') AS high
       FROM (SELECT p || g AS s FROM unnest(ARRAY['a:', 'z:']) AS p, generate_series(1, 300000) AS g) AS n
       GROUP BY hashtext(s) HAVING bool_or(s LIKE 'a:%') AND bool_or(s LIKE 'z:%') LIMIT 1`,
    );
    const { low, high } = rows[0]!;
    const id = randomUUID();
    // By name, one batch takes low (key K), its gate, then m (key L); the other m (L), its gate, then high (K).
    const m = `m:${id}`;
    const gates = [`f-gate:${id}`, `q-gate:${id}`];
    const outcomes = await race(
      [
        [unit(low, true, [], 'any'), unit(gates[0]!, true), unit(m, true, [], 'any')],
        [unit(m, true, [], 'any'), unit(gates[1]!, true), unit(high, true, [], 'any')],
      ],
      gates,
    );
    expect(outcomes).toEqual({
      first: { verdicts: ['committed', 'committed', 'committed'] },
      second: { verdicts: ['committed', 'committed', 'committed'] },
    });
  });
});
