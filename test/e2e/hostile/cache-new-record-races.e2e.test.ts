import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/** Red-team pass over the call-context cache: races between warm tickets on two instances. */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

describe('a new record raced from warm tickets on A and B', () => {
  it('is written once, and reads back (its data key committed with it)', async () => {
    const calls = await Promise.all(Array.from({ length: 4 }, () => caller(a, 'acme')));
    for (const [i, c] of calls.entries()) await warm(i % 2 ? b : a, c);
    const answers = await Promise.all(
      calls.flatMap((c, i) =>
        Array.from({ length: 5 }, (_, j) => records(i % 2 ? b : a, c.ticket, { op: 'put', scope: 'tenant', record_key: 'raced', body: { i, j }, expect: 0 })),
      ),
    );
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    const reader = await caller(b, 'acme');
    const got = await reader.rec({ op: 'get', scope: 'tenant', record_key: 'raced' });
    expect(got.status).toBe(200);
    expect(got.body.record).toMatchObject({ version: 1 });
    const onA = await records(a, reader.ticket, { op: 'get', scope: 'tenant', record_key: 'raced' });
    expect(onA.body.record).toEqual(got.body.record);
  });
});

describe('the call count with bodies the framework refuses', () => {
  it('answers exactly 64 requests when bad bodies and good ones race on A and B', async () => {
    const c = await caller(a, 'acme');
    await warm(a, c);
    await warm(b, c);
    const bodies = (i: number) =>
      i % 3 === 0 ? '{"op":' : i % 3 === 1 ? { op: 'bogus' } : { op: 'put', scope: 'project:bad', record_key: `k${i}`, body: {}, expect: 0 };
    const answers = await Promise.all(Array.from({ length: 96 }, (_, i) => records(i % 2 ? a : b, c.ticket, bodies(i))));
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    const counted = answers.filter((r) => r.body.error !== 'requests').length;
    expect(counted + 4).toBe(64);
  });
});
