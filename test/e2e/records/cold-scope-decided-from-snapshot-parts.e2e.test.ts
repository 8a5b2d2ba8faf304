import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { eventRegistry } from '../../../domain/events/registry.ts';
import type { Sealer } from '../../../domain/ports/sealer.ts';
import { decidePut, type PutRecord } from '../../../domain/records/decide.ts';
import { scopeDecider } from '../../../domain/records/decider.ts';
import { initialScopeState, newest, type ScopeEvent, type ScopeState } from '../../../domain/records/state.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import { startPair, stopPair } from '../../support/pair.ts';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * A scope's snapshot is a MACed head and parts named by digest (the records, the dedupe
 * index); a cold instance reads the head, catches it up with the log's events, and reads only
 * the parts a put looks into. Whatever two instances wrote around the snapshot, a cold third
 * instance decides every put — stale, dedupe, the records cap — exactly as the decider does on
 * a replay of the whole log; and a part edited in its row is never used.
 */
const CAP = 560;
let pair: { a: TestService; b: TestService };
let sealer: Sealer;
beforeAll(async () => {
  pair = await startPair({ caps: { records: CAP, bytes: 100_000_000 } });
  sealer = await postgresKeystore(pair.a.pool, pair.a.masterKey);
}, 120_000);
afterAll(async () => {
  await stopPair(pair);
});

const PURPOSES = ['routine:p0', 'routine:p1'] as const;
const callersOn = async (svc: TestService, n: number) => Promise.all(Array.from({ length: n }, (_, i) => caller(svc, 'acme', { purpose: PURPOSES[i % 2]! })));

interface Put {
  readonly key: string;
  readonly dedupe: string | null;
  readonly expect: 'current' | 'zero' | 'wrong';
  readonly closed: boolean;
  readonly purpose: 0 | 1;
}
const putArb = (keys: number): fc.Arbitrary<Put> =>
  fc.record({
    key: fc.nat(keys - 1).map((i) => `k${i}`),
    dedupe: fc.option(
      fc.nat(5).map((i) => `text-${i}`),
      { nil: null },
    ),
    expect: fc.constantFrom('current' as const, 'current' as const, 'zero' as const, 'wrong' as const),
    closed: fc.boolean().map((b) => b && Math.random() < 0.3),
    purpose: fc.constantFrom<0 | 1>(0, 1),
  });

/** The scope as a replay of its whole log has it (digests opened, as the service's codec opens them). */
const replayed = async (svc: TestService, stream: string): Promise<ScopeState> => {
  let state = initialScopeState();
  for (const r of await svc.store.readStream(stream)) {
    const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
    if (E.isLeft(decoded)) throw new Error(decoded.left);
    const e = decoded.right;
    if (e.type === 'RecordVersionWritten') {
      const digest = e.data.dedupe === null ? null : await sealer.open(e.data, 'dedupe', e.data.dedupe);
      state = scopeDecider.evolve(state, { type: 'RecordVersionWritten', data: { ...e.data, dedupe_digest: digest } });
    } else state = scopeDecider.evolve(state, e as ScopeEvent);
  }
  return state;
};

const versionIn = (s: ScopeState, key: string) => newest(s.records.get(key))?.version ?? 0;
const body = (p: Put, on: 'a' | 'b' | 'c', state?: ScopeState) => ({
  op: 'put',
  scope: '',
  record_key: p.key,
  body: { on },
  expect: p.expect === 'zero' ? 0 : p.expect === 'wrong' ? 999 : state ? versionIn(state, p.key) : 0,
  ...(p.dedupe === null ? {} : { dedupe: p.dedupe }),
  ...(p.closed ? { closed: true } : {}),
});

/** What the decider answers on `state` for this put, as the records API words it. */
const expectedAnswer = (state: ScopeState, p: Put, request: ReturnType<typeof body>, callerOf: Caller, now: number) => {
  const command: PutRecord = {
    tenant: 'acme',
    plugin: 'notes',
    settings: { ...defaultSettings(), caps: { records: CAP, bytes: 100_000_000 } },
    writer: {
      job: callerOf.job,
      run: 1,
      call: callerOf.call,
      step: 1,
      agent: 'scribe',
      plugin: 'notes',
      purpose: PURPOSES[p.purpose],
      data_subject: null,
      labels: [],
      tainted: false,
    },
    request_key: `probe-${Math.random()}`,
    scope: request.scope,
    key: p.key,
    expect: request.expect,
    kind: 'note',
    state: 'active',
    supersedes: null,
    ends_at: null,
    subject_kind: null,
    closed: p.closed,
    body: { k: '', n: '', c: '' },
    body_bytes: Buffer.byteLength(JSON.stringify(request.body)),
    dedupe_digest: p.dedupe === null ? null : sealer.dedupeDigest('acme', p.dedupe),
    now,
  };
  const decided = decidePut(command, state);
  return { decided, answer: E.isLeft(decided) ? { ...decided.left } : { version: decided.right[0]!.data.version } };
};

/** The scope's head is sealed in the parts format, past `revision`, once the snapshot writes scheduled so far have ended. */
const headPast = async (svc: TestService, stream: string, revision: number) => {
  // Written after the answer that took it.
  await snapshotWritesSettled();
  const { rows } = await svc.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM custodian_snapshots WHERE stream = $1 AND revision >= $2 AND state LIKE 'p1.%'`,
    [stream, revision],
  );
  if (Number(rows[0]!.n) !== 1) throw new Error(`no snapshot of ${stream} past ${revision} was taken`);
};

/**
 * A fill's put, sent again while it is refused `unavailable` (other writers kept moving the
 * scope for 10 s, as two instances putting hundreds at once do on a loaded machine: nothing of
 * it was written, and the answer says to send it again), a few times at most.
 */
const sent = async (svc: TestService, first: Caller, request: unknown) => {
  let r = await first.rec(request);
  // Sent again on a call of its own, so the retries never take the 64 requests of the fill's calls.
  for (let i = 0; i < 4 && r.status === 503 && r.body?.error === 'unavailable'; i++)
    r = await (await caller(svc, 'acme', { purpose: PURPOSES[0] })).rec(request);
  return r;
};

/**
 * 540 records on the two instances, so a snapshot is taken: every third with a dedupe text of
 * its own, every tenth then closed with one of the texts the probes use (closed, so several hold it).
 */
const fill = async (scope: string) => {
  const callers = [...(await callersOn(pair.a, 6)), ...(await callersOn(pair.b, 6))];
  // 64 requests a call: 12 callers carry the 594 puts.
  const answers = await Promise.all(
    Array.from({ length: 540 }, (_, i) =>
      sent(i % callers.length < 6 ? pair.a : pair.b, callers[i % callers.length]!, {
        op: 'put',
        scope,
        record_key: `f${i}`,
        body: { i },
        expect: 0,
        ...(i % 3 === 0 ? { dedupe: `fill-${i}` } : {}),
      }),
    ),
  );
  expect(answers.filter((r) => r.status !== 200)).toEqual([]);
  const closed = await Promise.all(
    Array.from({ length: 54 }, (_, j) =>
      sent((j * 10) % callers.length < 6 ? pair.a : pair.b, callers[(j * 10) % callers.length]!, {
        op: 'put',
        scope,
        record_key: `f${j * 10}`,
        body: {},
        expect: 1,
        dedupe: `text-${j % 6}`,
        closed: true,
      }),
    ),
  );
  expect(closed.filter((r) => r.status !== 200)).toEqual([]);
};

let world = 0;
describe('a scope past its snapshot, written on two instances at once', () => {
  it('is decided on a cold third instance exactly as the decider decides on a replay of its whole log', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom<0 | 1>(0, 1), putArb(30)), { minLength: 10, maxLength: 40 }),
        fc.array(putArb(40), { minLength: 10, maxLength: 30 }),
        async (around, probes) => {
          const scope = `project:parts-${world++}`;
          const stream = `records:acme:notes:${scope}`;
          await fill(scope);
          await headPast(pair.a, stream, 499);
          // Past the snapshot, on both instances at once (their appends conflict and are decided again).
          const writers = [await callersOn(pair.a, 2), await callersOn(pair.b, 2)] as const;
          const answers = await Promise.all(
            around.map(async ([on, p], n) => {
              const w = writers[on][p.purpose]!;
              return w.rec({ ...body(p, on ? 'b' : 'a'), scope, expect: p.expect === 'zero' ? 0 : p.expect === 'wrong' ? 999 : n % 2 });
            }),
          );
          // Each answered as the log has it, or refused `unavailable` with nothing written (the log the cold instance is held to has none of it).
          for (const r of answers) if (r.status !== 503 || r.body.error !== 'unavailable') expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);

          const c = await startTestService({ shareWith: pair.a });
          try {
            const probers = await callersOn(c, 2);
            let state = await replayed(c, stream);
            for (const p of probes) {
              const prober = probers[p.purpose]!;
              const request = { ...body(p, 'c', state), scope };
              const { decided, answer } = expectedAnswer(state, p, request, prober, c.clock.now());
              const r = await prober.rec(request);
              expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
              if (E.isRight(decided)) expect({ status: r.status, version: r.body.version }).toEqual({ status: 200, ...answer });
              else expect(r.body).toMatchObject(answer);
              // The probe's put, if written, is in the log the next probe is decided on.
              if (E.isRight(decided)) state = await replayed(c, stream);
            }
          } finally {
            await c.stop();
          }
        },
      ),
      // No shrinking: each run fills a collection of its own (hundreds of puts), so shrinking a failure ran on for many
      // minutes past any bound and hid it; the failing run is reported as it was drawn, with the seed that replays it.
      { numRuns: 3, endOnFailure: true },
    );
  }, 600_000);
});

describe("a scope's snapshot parts, edited in their rows", () => {
  it('are never used: a cold instance folds the scope from its log and decides as its log', async () => {
    const scope = 'project:edited-parts';
    const stream = `records:acme:notes:${scope}`;
    await fill(scope);
    await headPast(pair.a, stream, 499);
    // A record's part with its version edited (the head still names the part's old digest).
    const { rows } = await pair.a.pool.query<{ stream: string; state: string }>(
      `SELECT stream, state FROM custodian_snapshots WHERE stream LIKE $1 AND state LIKE '%"key":"f4"%'`,
      [`${stream}#records.%`],
    );
    expect(rows).toHaveLength(1);
    const edited = rows[0]!.state.replace(/"key":"f4","latest":\{"version":1/, '"key":"f4","latest":{"version":5');
    expect(edited).not.toBe(rows[0]!.state);
    await pair.a.pool.query('UPDATE custodian_snapshots SET state = $2 WHERE stream = $1', [rows[0]!.stream, edited]);
    const c = await startTestService({ shareWith: pair.a });
    try {
      const [on] = await callersOn(c, 1);
      expect(await on!.rec({ op: 'put', scope, record_key: 'f4', body: {}, expect: 5 })).toMatchObject({ status: 409, body: { error: 'stale', current: 1 } });
      expect(await on!.rec({ op: 'put', scope, record_key: 'f4', body: {}, expect: 1 })).toMatchObject({ status: 200, body: { version: 2 } });
    } finally {
      await c.stop();
    }
  }, 240_000);
});
