import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over the guarded append (issue 14): cached admissions whose guards and appends
 * are one statement, raced from two instances on one database.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

const keyRows = async (scope: string, prefix: string) =>
  (
    await a.pool.query<{ record_key: string }>(
      `SELECT record_key FROM custodian_data_keys WHERE tenant = 'acme' AND scope = $1 AND starts_with(record_key, $2) ORDER BY record_key`,
      [scope, prefix],
    )
  ).rows.map((r) => r.record_key);

const versionRows = async (scope: string, prefix: string) =>
  (
    await a.pool.query<{ key: string; version: number }>(
      `SELECT key, version FROM rm_record_versions WHERE tenant = 'acme' AND scope = $1 AND starts_with(key, $2) ORDER BY key, version`,
      [scope, prefix],
    )
  ).rows;

const callCount = async (c: Caller) =>
  Number((await a.pool.query<{ n: number }>('SELECT n FROM custodian_call_requests WHERE call = $1', [c.call])).rows[0]?.n ?? 0);

describe('100 new-record puts on one warm call, half on A and half on B', () => {
  it('answers exactly 64 requests and writes each answered record once, at version 1', async () => {
    const c = await caller(a, 'acme');
    await warm(a, c);
    await warm(b, c);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        records(i % 2 ? a : b, c.ticket, { op: 'put', scope: 'project:cap', record_key: `cap-${i}`, body: { i }, expect: 0 }),
      ),
    );
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    const ok = answers.flatMap((r, i) => (r.status === 200 ? [`cap-${i}`] : []));
    const refused = answers.filter((r) => r.status !== 200);
    // The 4 warm-up gets counted too.
    expect(ok).toHaveLength(60);
    expect(refused.every((r) => r.body.error === 'requests')).toBe(true);
    // The counter counts every request that reached it (refused ones too): at least the 64 answered.
    expect(await callCount(c)).toBeGreaterThanOrEqual(64);
    const versions = await versionRows('project:cap', 'cap-');
    expect(versions.map((v) => v.key).sort()).toEqual([...ok].sort());
    expect(versions.every((v) => Number(v.version) === 1)).toBe(true);
  });
});

describe('identical-digest puts raced from warm tickets on A and B', () => {
  const race = async () => {
    const callers = await Promise.all(Array.from({ length: 6 }, () => caller(a, 'acme')));
    for (const [i, c] of callers.entries()) await warm(i % 2 ? b : a, c);
    return Promise.all(
      callers.flatMap((c, i) =>
        Array.from({ length: 4 }, (_, j) =>
          records(i % 2 ? b : a, c.ticket, { op: 'put', scope: 'project:dd', record_key: `dd-${i}-${j}`, body: { i, j }, dedupe: 'the same text', expect: 0 }),
        ),
      ),
    );
  };
  let answers: Awaited<ReturnType<typeof race>>;
  beforeAll(async () => {
    answers = await race();
  });

  it('writes exactly one of them; the others are refused as duplicates of it', async () => {
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    const winner = won[0]!.body.key as string;
    expect(answers.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.error === 'duplicate' && r.body.key === winner)).toBe(true);
    expect((await versionRows('project:dd', 'dd-')).map((v) => v.key)).toEqual([winner]);
  });

  it('leaves no data key row for a record a refused put never wrote (a refusal writes nothing)', async () => {
    const written = (await versionRows('project:dd', 'dd-')).map((v) => v.key);
    expect(await keyRows('project:dd', 'dd-')).toEqual(written);
  });
});

describe('identical-digest puts raced from cold tickets (one request each, full admission) on A and B', () => {
  it('leaves no data key row for a record a refused put never wrote: the baseline without the cache', async () => {
    const callers = await Promise.all(Array.from({ length: 24 }, () => caller(a, 'acme')));
    const answers = await Promise.all(
      callers.map((c, i) =>
        records(i % 2 ? b : a, c.ticket, { op: 'put', scope: 'project:cold', record_key: `cold-${i}`, body: { i }, dedupe: 'cold text', expect: 0 }),
      ),
    );
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    const written = (await versionRows('project:cold', 'cold-')).map((v) => v.key);
    expect(written).toHaveLength(1);
    expect(await keyRows('project:cold', 'cold-')).toEqual(written);
  });
});

describe('50 stale writers of one record from warm tickets on A and B', () => {
  it('lets exactly one write version 2; the other 49 are refused as stale and write nothing', async () => {
    const first = await caller(a, 'acme');
    expect((await first.rec({ op: 'put', scope: 'project:stale', record_key: 'one', body: { v: 1 }, expect: 0 })).status).toBe(200);
    const callers = await Promise.all(Array.from({ length: 10 }, () => caller(a, 'acme')));
    for (const [i, c] of callers.entries()) await warm(i % 2 ? b : a, c);
    const answers = await Promise.all(
      callers.flatMap((c, i) =>
        Array.from({ length: 5 }, (_, j) =>
          records(i % 2 ? b : a, c.ticket, { op: 'put', scope: 'project:stale', record_key: 'one', body: { i, j }, expect: 1 }),
        ),
      ),
    );
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(won[0]!.body.version).toBe(2);
    expect(answers.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.error === 'stale')).toBe(true);
    expect((await versionRows('project:stale', 'one')).map((v) => Number(v.version))).toEqual([1, 2]);
    expect(await keyRows('project:stale', 'one')).toEqual(['one']);
  });
});
