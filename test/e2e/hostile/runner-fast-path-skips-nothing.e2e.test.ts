import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over the projection runner (issue 14): under a stream of puts (events no
 * runner model reads, so the leading group moves its checkpoints in one UPDATE) two instances'
 * runners share the checkpoints while admin events (jobs started, calls minted, calls ended)
 * land between the puts. No checkpoint may step over one of them: each admin answer is
 * followed at once by a request on the other instance that needs its model.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

describe('admin events between puts, answered on one instance and used on the other', () => {
  it('every minted ticket works at once on the other instance, every ended call is refused there, and the models hold them all', async () => {
    const writers: Caller[] = await Promise.all(Array.from({ length: 4 }, () => caller(a, 'acme')));
    for (const [i, c] of writers.entries()) await warm(i % 2 ? b : a, c);
    let stop = false;
    const streams = writers.map(async (c, i) => {
      let n = 0;
      while (!stop && n < 58) {
        const r = await records(i % 2 ? b : a, c.ticket, { op: 'put', scope: 'project:stream', record_key: `s-${i}-${n++}`, body: { n }, expect: 0 });
        expect(r.status).toBe(200);
      }
    });
    const minted: Caller[] = [];
    const firstUse: number[] = [];
    const afterEnd: { status: number; error: unknown }[] = [];
    try {
      for (let i = 0; i < 16; i++) {
        const [here, there] = i % 2 ? [b, a] : [a, b];
        const c = await caller(here, 'acme');
        minted.push(c);
        firstUse.push((await records(there, c.ticket, { op: 'put', scope: 'project:minted', record_key: `m-${i}`, body: { i }, expect: 0 })).status);
        expect((await here.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls/${c.call}/end`)).status).toBe(200);
        const r = await records(there, c.ticket, { op: 'get', scope: 'project:minted', record_key: `m-${i}` });
        afterEnd.push({ status: r.status, error: r.body.error });
      }
    } finally {
      stop = true;
      await Promise.all(streams);
    }
    expect(firstUse).toEqual(minted.map(() => 200));
    expect(afterEnd).toEqual(minted.map(() => ({ status: 401, error: 'ticket' })));
    await a.runner.catchUp();
    await b.runner.catchUp();
    const { rows } = await a.pool.query<{ call: string; ended: boolean }>(
      'SELECT call, ended_ms IS NOT NULL AS ended FROM rm_calls WHERE call = ANY($1::text[]) ORDER BY call',
      [minted.map((c) => c.call)],
    );
    expect(rows).toEqual(minted.map((c) => ({ call: c.call, ended: true })).sort((x, y) => (x.call < y.call ? -1 : 1)));
    const head = await a.lastPosition();
    const { rows: checkpoints } = await a.pool.query<{ name: string; position: string }>('SELECT name, position FROM custodian_checkpoints');
    for (const cp of checkpoints) expect([cp.name, Number(cp.position)]).toEqual([cp.name, head]);
  });
});
