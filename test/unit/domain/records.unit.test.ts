import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decidePut, type PutRecord } from '../../../domain/records/decide.ts';
import { DAY_MS, MAX_LIVE_PER_SCOPE } from '../../../domain/records/rules.ts';
import { countsUnderCaps, evolveScope, initialScopeState, isLive, newest, type OpenedRecordEvent, type ScopeState } from '../../../domain/records/state.ts';
import { crossesWall, mayRead } from '../../../domain/records/visibility.ts';
import { specify } from '../../support/decider.ts';
import { fold, type Decider } from '../../../domain/shared/decider.ts';
import { defaultSettings, type TenantSettings } from '../../../domain/tenants/settings.ts';

const NOW = 1_000_000_000_000;
const settings = (over: Partial<TenantSettings> = {}): TenantSettings => ({ ...defaultSettings(), ...over });
let req = 0;
const put = (over: Partial<PutRecord> = {}): PutRecord => ({
  tenant: 't',
  plugin: 'notes',
  settings: settings(),
  writer: { job: 'j', run: 1, call: 'c', step: 1, agent: 'scribe', plugin: 'notes', purpose: 'p', data_subject: null, labels: [], tainted: false },
  request_key: `rk${++req}`,
  scope: 'tenant',
  key: 'k',
  expect: 0,
  kind: 'note',
  state: 'active',
  supersedes: null,
  ends_at: null,
  subject_kind: null,
  closed: false,
  body: { k: 'key', n: 'n', c: 'c' },
  body_bytes: 10,
  dedupe_digest: null,
  now: NOW,
  ...over,
});

const scopeDecider: Decider<PutRecord, OpenedRecordEvent, ScopeState> = { initialState: initialScopeState, evolve: evolveScope, decide: decidePut };
const spec = specify(scopeDecider);

/** Given the puts that were written (each accepted in turn), when one more is decided, then this. */
const given = (puts: PutRecord[]) => {
  const history: OpenedRecordEvent[] = [];
  for (const p of puts) history.push(...spec.given(history).when(p).accepted());
  return { state: fold(scopeDecider, history), when: (p: PutRecord) => spec.given(history).when(p) };
};

describe('records decider: checks 5–12 in order', () => {
  it('writes version 1 of a new record with the defaults', () => {
    const then = given([]).when(put()).accepted();
    expect(then[0]!.data).toMatchObject({ version: 1, subject_kind: 'work', purpose: 'p', ends_at: NOW + 90 * DAY_MS, closed: false });
  });

  it('answers a repeated request key with nothing new (check 5), before checking expect', () => {
    const first = put({ request_key: 'same' });
    given([first])
      .when(put({ request_key: 'same', key: 'other', expect: 7 }))
      .thenNothing();
  });

  it('refuses a stale expect with the current version (check 6)', () => {
    given([put()])
      .when(put({ expect: 0 }))
      .then({ error: 'stale', current: 1 });
  });

  it('stale comes before purpose, purpose before closed', () => {
    const other = { ...put().writer, purpose: 'q' };
    given([put()])
      .when(put({ expect: 0, writer: other }))
      .then({ error: 'stale', current: 1 });
    given([put()])
      .when(put({ expect: 1, writer: other, closed: true }))
      .then({ error: 'purpose' });
    given([])
      .when(put({ closed: true }))
      .then({ error: 'closed' });
  });

  it('closing is a version, not a lock: a closed record takes a later version, which opens it again (check 8 is only for a first version)', () => {
    const { state, when } = given([put(), put({ expect: 1, closed: true })]);
    const closed = newest(state.records.get('k'));
    expect(closed).toMatchObject({ version: 2, closed: true });
    expect(isLive(closed, NOW)).toBe(false);
    const then = when(put({ expect: 2 })).accepted();
    expect(then[0]!.data).toMatchObject({ version: 3, closed: false });
    given([put(), put({ expect: 1, closed: true })])
      .when(put({ expect: 2, closed: true }))
      .accepted();
  });

  it('makes a data subject write person, and person sticky (check 9)', () => {
    const on = settings({ person_memory: [{ agent: 'scribe', purpose: 'p' }] });
    const subject = { ...put().writer, data_subject: 'user:ada' };
    const first = put({ settings: on, writer: subject, scope: 'agent:scribe' });
    const then = given([first])
      .when(put({ settings: on, scope: 'agent:scribe', expect: 1, subject_kind: 'work' }))
      .accepted();
    expect(then[0]!.data.subject_kind).toBe('person');
    given([])
      .when(put({ writer: subject }))
      .refused();
  });

  it('accepts a person write for a plugin-qualified agent in person_memory', () => {
    const on = settings({ person_memory: [{ agent: 'notes/scribe', purpose: 'p' }] });
    given([])
      .when(put({ settings: on, scope: 'agent:scribe', subject_kind: 'person' }))
      .accepted();
  });

  it('refuses ends in the past, at now, and past the longest (check 10)', () => {
    for (const ends_at of [NOW - 1, NOW, NOW + 365 * DAY_MS + 1]) given([]).when(put({ ends_at })).then({ error: 'ends_at', max_days: 365 });
    given([])
      .when(put({ ends_at: NOW + 365 * DAY_MS }))
      .accepted();
  });

  it('refuses dedupe only against live records of the same purpose (check 11)', () => {
    const a = put({ key: 'a', dedupe_digest: 'd' });
    given([a])
      .when(put({ key: 'b', dedupe_digest: 'd' }))
      .then({ error: 'duplicate', key: 'a', version: 1 });
    given([a])
      .when(put({ key: 'a', expect: 1, dedupe_digest: 'd' }))
      .accepted();
    given([a])
      .when(put({ key: 'b', dedupe_digest: 'd', writer: { ...put().writer, purpose: 'q' } }))
      .accepted();
    given([a])
      .when(put({ key: 'b', dedupe_digest: 'd', now: a.now + 91 * DAY_MS }))
      .accepted();
  });

  it('dedupe comes before caps (check 11 before 12)', () => {
    const tight = settings({ caps: { records: 1, bytes: 1000 } });
    given([put({ key: 'a', dedupe_digest: 'd', settings: tight })])
      .when(put({ key: 'b', dedupe_digest: 'd', settings: tight }))
      .then({ error: 'duplicate', key: 'a', version: 1 });
  });

  it('lets a write that shrinks usage through even over a lowered cap (check 12)', () => {
    const s = given([put({ key: 'a', body_bytes: 500 }), put({ key: 'b', body_bytes: 500 })]);
    const lowered = settings({ caps: { records: 1, bytes: 100 } });
    s.when(put({ key: 'a', expect: 1, body_bytes: 50, settings: lowered })).accepted();
    s.when(put({ key: 'c', settings: lowered })).then({ error: 'full', cap: 'records', limit: 1 });
  });
});

describe('records decider: the fixed bound on live records in a scope (check 12)', () => {
  const roomy = settings({ caps: { records: 1_000_000, bytes: 1 << 30 } });
  /** A scope holding `n` records written one by one, the first `ended` of them past their end. */
  const scopeOf = (n: number, ended = 0) => {
    let state = initialScopeState();
    for (let i = 0; i < n; i++) {
      const at = i < ended ? NOW - 2 * DAY_MS : NOW;
      const [event] = E.getOrElseW(() => [])(decidePut(put({ key: `r${i}`, settings: roomy, now: at, ends_at: at + DAY_MS }), state));
      state = evolveScope(state, event!);
    }
    return state;
  };

  it('given a scope of exactly the bound of live records, when a new record is put, then it is refused full', () => {
    expect(decidePut(put({ key: 'one-more', settings: roomy }), scopeOf(MAX_LIVE_PER_SCOPE))).toEqual(
      E.left({ error: 'full', cap: 'records', limit: MAX_LIVE_PER_SCOPE }),
    );
  });

  it('given a scope of the bound of records, one of them ended, when a new record is put, then it is written', () => {
    expect(E.isRight(decidePut(put({ key: 'one-more', settings: roomy }), scopeOf(MAX_LIVE_PER_SCOPE, 1)))).toBe(true);
  });

  it('given a scope one record under the bound, when a new record is put, then it is written (and the next is refused)', () => {
    const state = scopeOf(MAX_LIVE_PER_SCOPE - 1);
    const written = decidePut(put({ key: 'last', settings: roomy }), state);
    expect(E.isRight(written)).toBe(true);
    const full = evolveScope(state, (written as E.Right<readonly OpenedRecordEvent[]>).right[0]!);
    expect(decidePut(put({ key: 'over', settings: roomy }), full)).toEqual(E.left({ error: 'full', cap: 'records', limit: MAX_LIVE_PER_SCOPE }));
  });
});

describe('records decider: what counts under the caps', () => {
  const on = settings({ person_memory: [{ agent: 'scribe', purpose: 'p' }], caps: { records: 2, bytes: 1000 } });
  const person = (key: string, ends_at: number | null = null) => put({ settings: on, scope: 'agent:scribe', key, subject_kind: 'person', ends_at });

  it('counts a person record until its end, a work record past its end until retention', () => {
    const s = given([person('a', NOW + DAY_MS), person('b')]);
    s.when(person('c')).then({ error: 'full', cap: 'records', limit: 2 });
    s.when({ ...person('c'), now: NOW + DAY_MS }).accepted();
    const work = given([put({ settings: on, key: 'a', ends_at: NOW + DAY_MS }), put({ settings: on, key: 'b' })]);
    work.when(put({ settings: on, key: 'c', now: NOW + 2 * DAY_MS })).then({ error: 'full', cap: 'records', limit: 2 });
  });
});

describe('records decider: properties', () => {
  const op = fc.record({
    key: fc.constantFrom('a', 'b', 'c', 'd'),
    state: fc.constantFrom('active', 'deleted', 'draft'),
    closed: fc.boolean(),
    bytes: fc.integer({ min: 0, max: 400 }),
    stale: fc.boolean(),
  });

  it('the incremental caps counters always equal a recount of newest versions', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let state: ScopeState = initialScopeState();
        for (const o of ops) {
          const current = newest(state.records.get(o.key))?.version ?? 0;
          const d = decidePut(
            put({
              key: o.key,
              state: o.state,
              closed: o.closed,
              body_bytes: o.bytes,
              expect: o.stale ? current + 1 : current,
              settings: settings({ caps: { records: 3, bytes: 900 } }),
            }),
            state,
          );
          if (E.isRight(d)) state = d.right.reduce(evolveScope, state);
        }
        const counted = [...state.records.values()].map(newest).filter(countsUnderCaps);
        expect(state.counted).toBe(counted.length);
        expect(state.bytes).toBe(counted.reduce((n, v) => n + v!.body_bytes, 0));
        expect(state.counted).toBeLessThanOrEqual(3);
        expect(state.bytes).toBeLessThanOrEqual(900);
      }),
    );
  });

  it('a refused put never changes the state', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 20 }), op, (ops, last) => {
        let { state } = given([]);
        for (const o of ops) {
          const current = newest(state.records.get(o.key))?.version ?? 0;
          const d = decidePut(put({ key: o.key, state: o.state, closed: o.closed, body_bytes: o.bytes, expect: current }), state);
          if (E.isRight(d)) state = d.right.reduce(evolveScope, state);
        }
        const before = JSON.stringify([...state.records.entries()]);
        const d = decidePut(put({ key: last.key, expect: 999, closed: last.closed }), state);
        expect(E.isLeft(d)).toBe(true);
        expect(JSON.stringify([...state.records.entries()])).toBe(before);
      }),
    );
  });
});

describe('records decider: evolve returns a new state', () => {
  it('given a scope, when an event is evolved into it, then the scope it was given stays as it was', () => {
    const before = initialScopeState();
    const [first] = E.getOrElseW(() => [])(decidePut(put({ key: 'a' }), before));
    const after = evolveScope(before, first!);
    expect(newest(after.records.get('a'))?.version).toBe(1);
    expect(after.counted).toBe(1);
    expect(before.records.get('a')).toBeUndefined();
    expect(before.counted).toBe(0);
    expect(before.requests.size).toBe(0);
  });
});

describe('visibility rules', () => {
  const s = settings({ compatible_purposes: { p: ['q'] }, label_walls: [['red', 'blue']] });
  const reader = { agent: 'scribe', plugin: 'notes', purpose: 'p' };
  it.each([
    [{ scope: 'tenant', purpose: 'p', subject_kind: 'work' as const }, true],
    [{ scope: 'tenant', purpose: 'q', subject_kind: 'work' as const }, true],
    [{ scope: 'tenant', purpose: 'r', subject_kind: 'work' as const }, false],
    [{ scope: 'tenant', purpose: '', subject_kind: 'work' as const }, true],
    [{ scope: 'tenant', purpose: '', subject_kind: 'person' as const }, false],
    [{ scope: 'agent:scribe', purpose: 'p', subject_kind: 'work' as const }, true],
    [{ scope: 'agent:other', purpose: 'p', subject_kind: 'work' as const }, false],
  ])('a purposed reader of %j: %s', (record, visible) => expect(mayRead(reader, record, s)).toBe(visible));

  it('a reader without a purpose reads only records without one', () => {
    expect(mayRead({ ...reader, purpose: '' }, { scope: 'tenant', purpose: '', subject_kind: 'person' }, s)).toBe(true);
    expect(mayRead({ ...reader, purpose: '' }, { scope: 'tenant', purpose: 'p', subject_kind: 'work' }, s)).toBe(false);
  });

  it('walls stand both ways', () => {
    expect(crossesWall(s.label_walls, new Set(['red']), ['blue'])).toBe(true);
    expect(crossesWall(s.label_walls, new Set(['blue']), ['red', 'x'])).toBe(true);
    expect(crossesWall(s.label_walls, new Set(['red']), ['red', 'green'])).toBe(false);
  });
});
