import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, warm, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over the guarded append (issue 14): guards that fail in the middle of a batch
 * whose other guards hold. A failed guard must count nothing and write nothing; its request,
 * admitted again in full, is counted once.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

const callCount = async (c: Caller) =>
  Number((await a.pool.query<{ n: number }>('SELECT n FROM custodian_call_requests WHERE call = $1', [c.call])).rows[0]?.n ?? 0);
const keyRows = async (scope: string) =>
  (
    await a.pool.query<{ record_key: string }>(`SELECT record_key FROM custodian_data_keys WHERE tenant = 'acme' AND scope = $1 ORDER BY record_key`, [scope])
  ).rows.map((r) => r.record_key);
const versionRows = async (scope: string) =>
  (
    await a.pool.query<{ key: string; version: number }>(`SELECT key, version FROM rm_record_versions WHERE tenant = 'acme' AND scope = $1 ORDER BY key`, [
      scope,
    ])
  ).rows;
const eventsOf = async (scope: string) =>
  Number(
    (await a.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_events WHERE type = 'RecordVersionWritten' AND data->>'scope' = $1`, [scope]))
      .rows[0]!.n,
  );

describe('warm puts on A while B moves the tenant stream', () => {
  it('writes every put once and counts each request once (guards that failed counted nothing)', async () => {
    const c = await caller(a, 'acme');
    await warm(a, c);
    const puts = Array.from({ length: 12 }, (_, i) => c.rec({ op: 'put', scope: 'project:moved', record_key: `m-${i}`, body: { i }, expect: 0 }));
    const patches = Array.from({ length: 3 }, (_, i) => b.admin('PATCH', '/v1/tenants/acme', { caps: { records: 5000 + i, bytes: 1_000_000 } }));
    const answers = await Promise.all(puts);
    expect((await Promise.all(patches)).map((p) => p.status)).toEqual([200, 200, 200]);
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 12 }, () => 200));
    expect(await callCount(c)).toBe(2 + 12);
    const versions = await versionRows('project:moved');
    expect(versions).toHaveLength(12);
    expect(versions.every((v) => Number(v.version) === 1)).toBe(true);
    expect(await keyRows('project:moved')).toEqual(versions.map((v) => v.key));
  });
});

describe('one batch on A: puts of a call B ended, and puts of a live call', () => {
  it('refuses the ended call, writing nothing for it, and writes the live call once each', async () => {
    const ended = await caller(a, 'acme');
    const live = await caller(a, 'acme');
    await warm(a, ended);
    await warm(a, live);
    expect((await b.admin('POST', `/v1/tenants/acme/jobs/${ended.job}/calls/${ended.call}/end`)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 ? live : ended).rec({ op: 'put', scope: i % 2 ? 'project:live' : 'project:dead', record_key: `k-${i}`, body: { i }, expect: 0 }),
      ),
    );
    expect(answers.filter((r, i) => i % 2 === 1).map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 200));
    expect(answers.filter((r, i) => i % 2 === 0).every((r) => r.status === 401 && r.body.error === 'ticket')).toBe(true);
    expect(await keyRows('project:dead')).toEqual([]);
    expect(await versionRows('project:dead')).toEqual([]);
    expect(await eventsOf('project:dead')).toBe(0);
    expect(await callCount(ended)).toBe(2);
    expect(await callCount(live)).toBe(2 + 8);
    expect(await versionRows('project:live')).toHaveLength(8);
    expect(await keyRows('project:live')).toHaveLength(8);
    // The same count of the live call's events shows the query above can see what it looks for.
    expect(await eventsOf('project:live')).toBe(8);
  });
});

describe('audited gets on a warm ticket on A while B moves the tenant stream', () => {
  it('records each read exactly once and counts each request once', async () => {
    const writer = await caller(a, 'acme');
    expect((await writer.rec({ op: 'put', scope: 'project:audited', record_key: 'seen', body: { v: 1 }, expect: 0 })).status).toBe(200);
    const c = await caller(a, 'acme');
    await warm(a, c);
    const gets = Array.from({ length: 20 }, () => c.rec({ op: 'get', scope: 'project:audited', record_key: 'seen' }));
    const patches = Array.from({ length: 3 }, (_, i) => b.admin('PATCH', '/v1/tenants/acme', { caps: { records: 6000 + i, bytes: 1_000_000 } }));
    const answers = await Promise.all(gets);
    expect((await Promise.all(patches)).map((p) => p.status)).toEqual([200, 200, 200]);
    expect(answers.map((r) => [r.status, r.body.record?.body])).toEqual(Array.from({ length: 20 }, () => [200, { v: 1 }]));
    expect(await callCount(c)).toBe(2 + 20);
    const { rows } = await a.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM custodian_events WHERE type = 'RecordsRead' AND data->>'call' = $1 AND jsonb_array_length(data->'records') = 1`,
      [c.call],
    );
    expect(rows[0]!.n).toBe(20);
  });
});
