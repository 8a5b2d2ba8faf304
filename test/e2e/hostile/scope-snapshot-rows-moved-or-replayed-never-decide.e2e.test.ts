import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRegistry } from '../../../domain/events/registry.ts';
import { scopeDecider } from '../../../domain/records/decider.ts';
import { initialScopeState, type ScopeEvent } from '../../../domain/records/state.ts';
import { caller, records, type Caller } from '../../support/records.ts';
import { startPair, stopPair } from '../../support/pair.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * Whoever can write the snapshots table can move a scope's head or parts to another scope's
 * rows, put back an older head with its older parts (or over the newer ones), cut a part's
 * text short, empty or drop it, or shuffle parts between addresses: a cold instance then
 * decides every put as the MAC-checked log has it — stale, a request key answered as before,
 * dedupe, the records cap, a held person record past its end — and an erasure removes exactly
 * the subject's records, never deciding from the rows moved (a head opens only under its
 * stream and revision, a part only under the digest its head names).
 */
const MINE = 'project:mine';
const THEIRS = 'project:theirs';
const STREAM = `records:acme:notes:${MINE}`;
const OTHER = `records:acme:notes:${THEIRS}`;
const PURPOSE = 'routine:r';
/** The records cap: the fill leaves 522 records counted (the held one ends); each variant's erasure frees two, its probes take them again. */
const CAP = 526;
const VARIANTS = 8;
const DAY = 86_400_000;

let a: TestService;
let b: TestService;
let rkCaller: Caller;
type Row = { stream: string; revision: number; state: string };
let newer: Row[] = [];
let older: Row[] = [];
let theirs: Row[] = [];

const rowsOf = async (stream: string) =>
  (
    await a.pool.query<Row>(`SELECT stream, revision::int AS revision, state FROM custodian_snapshots WHERE stream = $1 OR starts_with(stream, $1 || '#')`, [
      stream,
    ])
  ).rows;

/** The stream's head is sealed at `revision` or later, once the snapshot writes scheduled so far have ended (written after the answer to the append that crossed it). */
const headPast = async (stream: string, revision: number) => {
  await snapshotWritesSettled();
  const head = (await rowsOf(stream)).find((r) => r.stream === stream);
  if (!(head && head.revision >= revision && head.state.startsWith('p1.'))) throw new Error(`no snapshot of ${stream} past ${revision}`);
};

/** A put sent again while it is refused `unavailable` (nothing written; the answer says to send it again), on a call of its own. */
const sent = async (svc: TestService, first: Caller, request: unknown) => {
  let r = await first.rec(request);
  for (let i = 0; i < 4 && r.status === 503 && r.body?.error === 'unavailable'; i++) r = await (await caller(svc, 'acme', { purpose: PURPOSE })).rec(request);
  return r;
};

/** Puts in parallel, 60 to a call (a call carries 64 requests). */
const putAll = async (requests: unknown[]) => {
  const callers = await Promise.all(Array.from({ length: Math.ceil(requests.length / 60) }, () => caller(a, 'acme', { purpose: PURPOSE })));
  const answers = await Promise.all(requests.map((q, i) => sent(a, callers[Math.floor(i / 60)]!, q)));
  expect(answers.filter((r) => r.status !== 200)).toEqual([]);
};

beforeAll(async () => {
  ({ a, b } = await startPair({
    caps: { records: CAP, bytes: 100_000_000 },
    person_memory: [{ agent: 'scribe', purpose: PURPOSE }],
    person_shared_scopes: [MINE, THEIRS],
  }));
  // Mine, first: f0–f504 (every fifth with a dedupe text of its own), a held person record ending in a day, two records for each variant's data subject, one request key.
  await putAll(
    Array.from({ length: 505 }, (_, i) => ({
      op: 'put',
      scope: MINE,
      record_key: `f${i}`,
      body: { i },
      expect: 0,
      ...(i % 5 === 0 ? { dedupe: `fill-${i}` } : {}),
    })),
  );
  const held = await caller(a, 'acme', { purpose: PURPOSE, data_subject: 'user:held' });
  expect(await held.rec({ op: 'put', scope: MINE, record_key: 'held-k', body: {}, expect: 0, ends_at: a.clock.now() + DAY })).toMatchObject({ status: 200 });
  expect((await a.admin('POST', '/v1/tenants/acme/holds', { selector: { scope: MINE, record: 'held-k' }, reason: 'litigation' })).status).toBeLessThan(300);
  for (let v = 0; v < VARIANTS; v++) {
    const subject = await caller(a, 'acme', { purpose: PURPOSE, data_subject: `user:e${v}` });
    for (const j of [0, 1])
      expect(await subject.rec({ op: 'put', scope: MINE, record_key: `e${v}-${j}`, body: { v, j }, expect: 0 })).toMatchObject({ status: 200 });
  }
  rkCaller = await caller(a, 'acme', { purpose: PURPOSE, step: 1 });
  expect(await rkCaller.rec({ op: 'put', scope: MINE, record_key: 'rk', body: { first: true }, expect: 0 })).toMatchObject({
    status: 200,
    body: { version: 1 },
  });
  await headPast(STREAM, 499);
  older = await rowsOf(STREAM);
  // Then every f0–f499 at version 2: multiples of ten keep their text, the other multiples of five drop theirs — past a second snapshot.
  await putAll(
    Array.from({ length: 500 }, (_, i) => ({
      op: 'put',
      scope: MINE,
      record_key: `f${i}`,
      body: { i, v: 2 },
      expect: 1,
      ...(i % 10 === 0 ? { dedupe: `fill-${i}` } : {}),
    })),
  );
  // Theirs: the same keys (so the same part addresses), other versions and texts.
  await putAll(
    Array.from({ length: 505 }, (_, i) => ({ op: 'put', scope: THEIRS, record_key: `f${i}`, body: { theirs: i }, expect: 0, dedupe: `theirs-${i}` })),
  );
  await headPast(STREAM, 999);
  await headPast(OTHER, 499);
  newer = await rowsOf(STREAM);
  theirs = await rowsOf(OTHER);
  expect(older.find((r) => r.stream === STREAM)!.revision).toBeLessThan(newer.find((r) => r.stream === STREAM)!.revision);
}, 600_000);
afterAll(() => stopPair({ a, b }));

/** Sets this scope's snapshot rows to exactly `rows`. */
const setRows = async (rows: readonly Row[]) => {
  await a.pool.query(`DELETE FROM custodian_snapshots WHERE stream = $1 OR starts_with(stream, $1 || '#')`, [STREAM]);
  for (const r of rows) await a.pool.query('INSERT INTO custodian_snapshots (stream, revision, state) VALUES ($1, $2, $3)', [r.stream, r.revision, r.state]);
};

/** The records that count under the cap at `now`, as a replay of the whole log has them (a person record past its end counts no more). */
const countedInLog = async (now: number) => {
  let s = initialScopeState();
  for (const r of await a.store.readStream(STREAM)) {
    const d = eventRegistry.decode(r.type, r.schema_version, r.data);
    if (E.isLeft(d)) throw new Error(d.left);
    const e = d.right;
    s = scopeDecider.evolve(
      s,
      e.type === 'RecordVersionWritten' ? { type: 'RecordVersionWritten', data: { ...e.data, dedupe_digest: null } } : (e as ScopeEvent),
    );
  }
  let ended = 0;
  for (const [, r] of s.records) if (r.latest.state !== 'deleted' && r.latest.subject_kind === 'person' && r.latest.ends_at <= now) ended++;
  return s.counted - ended;
};

let variant = 0;
/** A fresh instance on the rows as they are now decides every rule as the log (its clock two days on: the held record has ended). */
const decidesAsTheLog = async () => {
  const v = variant++;
  const c = await startTestService({ shareWith: a, testClock: true });
  try {
    expect((await c.admin('POST', '/v1/_clock', { advance_ms: 2 * DAY })).status).toBe(200);
    const on = await caller(c, 'acme', { purpose: PURPOSE });
    // Stale: each key at the version the log has.
    expect(await on.rec({ op: 'put', scope: MINE, record_key: 'f0', body: {}, expect: 0 })).toMatchObject({
      status: 409,
      body: { error: 'stale', current: 2 },
    });
    expect(await on.rec({ op: 'put', scope: MINE, record_key: 'f7', body: {}, expect: 1 })).toMatchObject({
      status: 409,
      body: { error: 'stale', current: 2 },
    });
    expect(await on.rec({ op: 'put', scope: MINE, record_key: 'f503', body: {}, expect: 2 })).toMatchObject({
      status: 409,
      body: { error: 'stale', current: 1 },
    });
    expect(await on.rec({ op: 'put', scope: MINE, record_key: `f${300 + v}`, body: { v }, expect: 2 })).toMatchObject({ status: 200, body: { version: 3 } });
    // The request key already used answers its first write.
    const minted = await c.admin('POST', `/v1/tenants/acme/jobs/${rkCaller.job}/calls`, { function: 'save', step: 1 });
    expect(minted.body._meta['oz0/idempotency_key']).toBe(rkCaller.idempotencyKey);
    const again = await records(c, minted.body._meta['oz0/records'].ticket, { op: 'put', scope: MINE, record_key: 'rk', body: { v }, expect: 0 });
    expect(again).toMatchObject({ status: 200, body: { version: 1, key: 'rk' } });
    // A person record past its end, kept by a hold: its key is not written again.
    expect(await on.rec({ op: 'put', scope: MINE, record_key: 'held-k', body: {}, expect: 1 })).toMatchObject({ status: 409, body: { error: 'held' } });
    // The subject's two records removed, and only those.
    const before = await c.lastPosition();
    const erased = await c.admin('POST', '/v1/tenants/acme/erasures', { data_subject: `user:e${v}` });
    expect(erased.status, JSON.stringify(erased.body)).toBeLessThan(300);
    const { rows: removed } = await c.pool.query<{ key: string }>(
      `SELECT data->>'key' AS key FROM custodian_events WHERE stream = $1 AND type = 'RecordRemoved' AND position > $2 ORDER BY 1`,
      [STREAM, before],
    );
    expect(removed.map((r) => r.key)).toEqual([`e${v}-0`, `e${v}-1`]);
    // Dedupe: of two identical texts exactly one is kept; a text the snapshot's records hold is theirs, one they dropped is free.
    expect(await on.rec({ op: 'put', scope: MINE, record_key: `d${v}-a`, body: {}, expect: 0, dedupe: `pair-${v}` })).toMatchObject({ status: 200 });
    expect(await on.rec({ op: 'put', scope: MINE, record_key: `d${v}-b`, body: {}, expect: 0, dedupe: `pair-${v}` })).toMatchObject({
      status: 409,
      body: { error: 'duplicate', key: `d${v}-a` },
    });
    expect(await on.rec({ op: 'put', scope: MINE, record_key: `d${v}-c`, body: {}, expect: 0, dedupe: 'fill-10' })).toMatchObject({
      status: 409,
      body: { error: 'duplicate', key: 'f10' },
    });
    expect(await on.rec({ op: 'put', scope: MINE, record_key: `d${v}-d`, body: {}, expect: 0, dedupe: 'fill-500' })).toMatchObject({
      status: 409,
      body: { error: 'duplicate', key: 'f500' },
    });
    expect(await on.rec({ op: 'put', scope: MINE, record_key: `d${v}-e`, body: {}, expect: 0, dedupe: `fill-${10 * v + 5}` })).toMatchObject({ status: 200 });
    // The cap: exactly as many new records as the log leaves room for.
    const room = CAP - (await countedInLog(c.clock.now()));
    expect(room).toBeGreaterThanOrEqual(0);
    const more = await caller(c, 'acme', { purpose: PURPOSE });
    for (let j = 0; j < room; j++)
      expect(await more.rec({ op: 'put', scope: MINE, record_key: `c${v}-${j}`, body: {}, expect: 0 })).toMatchObject({ status: 200 });
    expect(await more.rec({ op: 'put', scope: MINE, record_key: `c${v}-full`, body: {}, expect: 0 })).toMatchObject({
      status: 409,
      body: { error: 'full', cap: 'records', limit: CAP },
    });
  } finally {
    await c.stop();
  }
};

const partRows = (rows: readonly Row[], map?: string) => rows.filter((r) => r.stream.startsWith(`${STREAM}#${map ?? ''}`));
/** `rows` with `over` put in their place (rows `over` has no row for are kept: a look into them finds what its head names). */
const overlaid = (rows: readonly Row[], over: readonly Row[]) => [...new Map([...rows, ...over].map((r) => [r.stream, r])).values()];

describe("a scope's snapshot rows, tampered with", () => {
  it('untouched: a cold instance decides as the log (the baseline)', async () => {
    await setRows(newer);
    expect(partRows(newer, 'records.').length).toBeGreaterThan(100);
    expect(partRows(newer, 'dedupe.').length).toBeGreaterThan(50);
    await decidesAsTheLog();
  });
  it("another scope's parts under this scope's part keys (same addresses, same record keys) are never used", async () => {
    await setRows(
      overlaid(
        newer,
        theirs.filter((r) => r.stream !== OTHER).map((r) => ({ ...r, stream: r.stream.replace(OTHER, STREAM), revision: 10_000 })),
      ),
    );
    await decidesAsTheLog();
  });
  it("another scope's head in this scope's row is never used", async () => {
    const head = theirs.find((r) => r.stream === OTHER)!;
    await setRows([...partRows(newer), { ...head, stream: STREAM }]);
    await decidesAsTheLog();
  });
  it('an older head put back with its older parts is caught up with the log', async () => {
    await setRows(older);
    await decidesAsTheLog();
  });
  it('an older head put back over the newer parts is never used where they differ', async () => {
    await setRows([...partRows(newer), older.find((r) => r.stream === STREAM)!]);
    await decidesAsTheLog();
  });
  it('the newer head over the older parts is never used where they differ', async () => {
    await setRows(overlaid(newer, partRows(older)));
    await decidesAsTheLog();
  });
  it('parts cut short, emptied or dropped are never used', async () => {
    await setRows([
      newer.find((r) => r.stream === STREAM)!,
      ...partRows(newer).flatMap((r, n) => (n % 3 === 0 ? [{ ...r, state: r.state.slice(0, r.state.length >> 1) }] : n % 3 === 1 ? [{ ...r, state: '' }] : [])),
    ]);
    await decidesAsTheLog();
  });
  it('parts shuffled between addresses (and from one map to the other) are never used', async () => {
    const parts = partRows(newer);
    await setRows([newer.find((r) => r.stream === STREAM)!, ...parts.map((r, i) => ({ ...parts[(i + 7) % parts.length]!, stream: r.stream }))]);
    await decidesAsTheLog();
  });
});
