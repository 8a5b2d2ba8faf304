import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over the write path (issue 14): a reader that tails the log from its cursor
 * while two instances append at once — guarded batches with a new record's key row (positions
 * taken with BEGIN), guarded statements alone (an audited get's read), full admissions (a
 * statement before the append) and plain admin appends — must see every event exactly once,
 * in position order, never passing over one that commits later.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

describe('a tailing reader while A and B append every kind of batch at once', () => {
  it('sees every event once, in position order, with nothing passed over', async () => {
    const start = await a.lastPosition();
    const callers: Caller[] = await Promise.all(Array.from({ length: 6 }, () => caller(a, 'acme')));
    for (const [i, c] of callers.entries()) await warm(i % 2 ? b : a, c);
    const seen: number[] = [];
    let cursor = await a.lastPosition();
    const from = cursor;
    /** Once the load is answered: the last position written, which the tail must reach. */
    let last: number | null = null;
    const tail = (async () => {
      for (;;) {
        const target = last;
        const events = await a.store.readAll(cursor, { limit: 50 });
        for (const e of events) seen.push(e.position);
        if (events.length > 0) cursor = events.at(-1)!.position;
        if (target !== null && cursor >= target) return;
        // A transaction open elsewhere can hold the readable head back a moment.
        if (events.length === 0) await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const load = callers.flatMap((c, i) => {
      const svc = i % 2 ? b : a;
      return Array.from({ length: 8 }, (_, j) =>
        j % 2
          ? records(svc, c.ticket, { op: 'put', scope: 'project:tail', record_key: `t-${i}-${j}`, body: { i, j }, expect: 0 })
          : records(svc, c.ticket, { op: 'get', scope: 'project:tail', record_key: `t-${i}-${j - 1}` }),
      );
    });
    const cold = Array.from({ length: 6 }, (_, i) =>
      caller(i % 2 ? b : a, 'acme').then((c) => c.rec({ op: 'put', scope: 'project:cold', record_key: `c-${i}`, body: { i }, expect: 0 })),
    );
    const answers = await Promise.all([...load, ...cold]);
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    last = await a.lastPosition();
    await tail;
    const all = (await a.pool.query<{ position: string }>('SELECT position FROM custodian_events WHERE position > $1 ORDER BY position', [from])).rows.map(
      (r) => Number(r.position),
    );
    expect(all.length).toBeGreaterThan(48);
    expect(seen).toEqual(all);
    expect(start).toBeLessThan(from);
  });
});
