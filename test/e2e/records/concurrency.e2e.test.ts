import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Two service instances on one database, each with its own scope-state cache and lock, take
 * the writers in turn: the rules must hold through the store's expected revisions, not only
 * through one process's serialisation.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ caps: { records: 10, bytes: 1_000_000 } })));
afterAll(() => stopPair({ a, b }));

const callers = (count: number) => Promise.all(Array.from({ length: count }, () => caller(a, 'acme', { input: 'race' })));
const inParallel = (cs: Caller[], body: (i: number) => unknown) => Promise.all(cs.map((c, i) => records(i % 2 === 0 ? a : b, c.ticket, body(i))));

describe('records rules under truly parallel writers (two instances, one database)', () => {
  it('50 puts with the same expect: exactly 1 written, 49 stale', async () => {
    const seed = await caller(a, 'acme', { input: 'race' });
    await seed.rec({ op: 'put', scope: 'project:race', record_key: 'contended', body: {}, expect: 0 });
    const answers = await inParallel(await callers(50), (i) => ({ op: 'put', scope: 'project:race', record_key: 'contended', body: { i }, expect: 1 }));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    const stale = answers.filter((r) => r.status === 409);
    expect(stale).toHaveLength(49);
    expect(stale.every((r) => r.body.error === 'stale' && r.body.current === 2)).toBe(true);
    const history = await seed.rec({ op: 'history', scope: 'project:race', record_key: 'contended' });
    expect(history.body.records.map((r: any) => r.version)).toEqual([2, 1]);
  });

  it('50 new records into a scope one below its cap: exactly 1 written, 49 full', async () => {
    const seed = await caller(a, 'acme', { input: 'race' });
    for (let i = 0; i < 9; i++) await seed.rec({ op: 'put', scope: 'project:cap', record_key: `pre-${i}`, body: {}, expect: 0 });
    const answers = await inParallel(await callers(50), (i) => ({ op: 'put', scope: 'project:cap', record_key: `new-${i}`, body: {}, expect: 0 }));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    const full = answers.filter((r) => r.status === 409);
    expect(full).toHaveLength(49);
    expect(full.every((r) => r.body.error === 'full' && r.body.cap === 'records' && r.body.limit === 10)).toBe(true);
    const listed = await seed.rec({ op: 'list', list: { scopes: ['project:cap'], limit: 200 } });
    expect(listed.body.records).toHaveLength(10);
  });

  it('2 puts with the same dedupe text: exactly 1 duplicate', async () => {
    for (let round = 0; round < 5; round++) {
      const answers = await inParallel(await callers(2), (i) => ({
        op: 'put',
        scope: 'project:dedupe',
        record_key: `r${round}-${i}`,
        body: {},
        expect: 0,
        dedupe: `text ${round}`,
      }));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      expect(answers.filter((r) => r.status === 409 && r.body.error === 'duplicate')).toHaveLength(1);
    }
  });
});
