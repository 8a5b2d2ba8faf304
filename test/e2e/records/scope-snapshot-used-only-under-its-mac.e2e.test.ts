import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * A scope's snapshot is a copy, not the log: a cold instance decides from it only under its
 * MAC (the tenant's key, over the stream, the revision and the text). A snapshot row written by
 * someone without the key — an empty scope's text, as snapshots were stored before they were
 * sealed — or a sealed one moved to another revision, is ignored and the scope folded from its
 * log: a written record stays `stale` at `expect: 0`, however the row says otherwise.
 */
const SCOPE = 'project:sealed';
const RECORDS = 520;
let a: TestService;
let b: TestService;
const cold: TestService[] = [];
let stream = '';
let sealed: { revision: number; state: string };

beforeAll(async () => {
  ({ a, b } = await startPair({ caps: { records: 10_000, bytes: 100_000_000 } }));
  // 520 records (one snapshot is taken every 500 events of a scope), 52 puts per call.
  const callers = await Promise.all(Array.from({ length: RECORDS / 52 }, () => caller(a, 'acme', { input: 'sealed' })));
  const answers = await Promise.all(
    callers.flatMap((c, ci) =>
      Array.from({ length: 52 }, (_, j) => c.rec({ op: 'put', scope: SCOPE, record_key: `r-${ci * 52 + j}`, body: { j }, expect: 0 })),
    ),
  );
  expect(answers.filter((r) => r.status !== 200)).toEqual([]);
  // Written after the answer to the append that crossed 500 events: every write scheduled so far has ended.
  await snapshotWritesSettled();
  const { rows } = await a.pool.query<{ stream: string; revision: number; state: string }>(
    `SELECT stream, revision::int AS revision, state FROM custodian_snapshots WHERE stream LIKE '%:' || $1`,
    [SCOPE],
  );
  expect(rows).toHaveLength(1);
  ({ stream, ...sealed } = rows[0]!);
}, 240_000);
afterAll(async () => {
  for (const c of cold) await c.stop();
  await stopPair({ a, b });
});

/** An empty scope's text as snapshots were stored before they were sealed (format 2, bare). */
const UNSEALED = JSON.stringify({
  format: 2,
  keys: [],
  versions: [],
  purposes: [],
  purpose: [],
  states: [],
  state: [],
  flags: [],
  ends_at: [],
  body_bytes: [],
  digest: [],
  renewal: [],
});

/** A fresh instance (nothing cached) on the same database, after the snapshot row was set to `row`. */
const coldAfter = async (row: { revision: number; state: string }) => {
  await a.pool.query('UPDATE custodian_snapshots SET revision = $2, state = $3 WHERE stream = $1', [stream, row.revision, row.state]);
  const c = await startTestService({ shareWith: a });
  cold.push(c);
  return caller(c, 'acme', { input: 'sealed' });
};

describe("a scope's snapshot on a cold instance", () => {
  it('is stored as a sealed head', () => {
    expect(sealed.state).toMatch(/^p1\.[^.]+\.\{/);
  });

  it('is decided from when its seal holds', async () => {
    const on = await coldAfter(sealed);
    expect(await on.rec({ op: 'put', scope: SCOPE, record_key: 'r-0', body: {}, expect: 0 })).toMatchObject({
      status: 409,
      body: { error: 'stale', current: 1 },
    });
    expect(await on.rec({ op: 'put', scope: SCOPE, record_key: 'new-1', body: {}, expect: 0 })).toMatchObject({ status: 200 });
  });

  it('is ignored when it is an unsealed text (an empty scope), and the scope is folded from its log', async () => {
    const on = await coldAfter({ revision: sealed.revision, state: UNSEALED });
    expect(await on.rec({ op: 'put', scope: SCOPE, record_key: 'r-1', body: {}, expect: 0 })).toMatchObject({
      status: 409,
      body: { error: 'stale', current: 1 },
    });
    expect(await on.rec({ op: 'put', scope: SCOPE, record_key: 'new-2', body: {}, expect: 0 })).toMatchObject({ status: 200 });
  });

  it('is ignored when its sealed text is moved to another revision', async () => {
    // A record written just after the snapshot's own revision: a moved snapshot would skip it.
    const { rows } = await a.pool.query<{ key: string }>(
      `SELECT data->>'key' AS key FROM custodian_events WHERE stream = $1 AND revision > $2 AND revision <= $2 + 15 ORDER BY revision LIMIT 1`,
      [stream, sealed.revision],
    );
    const skipped = rows[0]!.key;
    const on = await coldAfter({ revision: sealed.revision + 15, state: sealed.state });
    expect(await on.rec({ op: 'put', scope: SCOPE, record_key: skipped, body: {}, expect: 0 })).toMatchObject({
      status: 409,
      body: { error: 'stale', current: 1 },
    });
  });

  it('is ignored when a byte of its text is changed under the same seal', async () => {
    // The head names its parts by digest: a head naming other parts is as edited as one naming other records.
    const edited = sealed.state.replace(/"parts":\[\[(\d+),"[0-9a-f]/, '"parts":[[$1,"z');
    expect(edited).not.toBe(sealed.state);
    const on = await coldAfter({ revision: sealed.revision, state: edited });
    expect(await on.rec({ op: 'put', scope: SCOPE, record_key: 'r-2', body: {}, expect: 0 })).toMatchObject({
      status: 409,
      body: { error: 'stale', current: 1 },
    });
  });
});
