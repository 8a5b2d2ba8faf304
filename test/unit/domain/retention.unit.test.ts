import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decidePut, type PutRecord } from '../../../domain/records/decide.ts';
import { DAY_MS } from '../../../domain/records/rules.ts';
import { evolveScope, initialScopeState, newest, type ScopeEvent, type ScopeState } from '../../../domain/records/state.ts';
import { decideRetention, type RetainScope, type RetentionCandidate } from '../../../domain/retention/decide.ts';
import { fold, type Decider } from '../../../domain/shared/decider.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import { specify } from '../../support/decider.ts';

const T0 = 1_000_000_000_000;
const settings = { ...defaultSettings(), person_memory: [{ agent: 'scribe', purpose: 'p' }] };
let rk = 0;
const put = (key: string, expect: number, now: number, over: Partial<PutRecord> = {}): PutRecord => ({
  tenant: 't',
  plugin: 'notes',
  settings,
  writer: { job: 'j', run: 1, call: 'c', step: 1, agent: 'scribe', plugin: 'notes', purpose: 'p', data_subject: null, labels: [], tainted: false },
  request_key: `rk${++rk}`,
  scope: 'agent:scribe',
  key,
  expect,
  kind: 'note',
  state: 'active',
  supersedes: null,
  ends_at: now + DAY_MS,
  subject_kind: null,
  closed: false,
  body: { k: 'key', n: 'n', c: 'c' },
  body_bytes: 10,
  dedupe_digest: null,
  now,
  ...over,
});

const scopeDecider: Decider<PutRecord, ScopeEvent, ScopeState> = { initialState: initialScopeState, evolve: evolveScope, decide: decidePut };
const retentionDecider: Decider<RetainScope, ScopeEvent, ScopeState> = { initialState: initialScopeState, evolve: evolveScope, decide: decideRetention };
const puts = specify(scopeDecider);
const retention = specify(retentionDecider);

/** Given these puts on one scope stream, when retention runs at `now` with these candidates, then these events. */
const given = (written: PutRecord[]) => {
  const history: ScopeEvent[] = [];
  for (const p of written) history.push(...puts.given(history).when(p).accepted());
  const retain = (now: number, candidates: RetentionCandidate[]): RetainScope => ({
    tenant: 't',
    plugin: 'notes',
    scope: 'agent:scribe',
    retention_days: 10,
    candidates,
    now,
    holds_at: { stream: 'tenant-t', revision: 0 },
  });
  return {
    get state(): ScopeState {
      return fold(scopeDecider, history);
    },
    /** One more put, kept only if the decider accepts it. */
    put(p: PutRecord) {
      const d = puts.given(history).when(p).decision;
      if (E.isRight(d)) history.push(...d.right);
    },
    when(now: number, candidates: RetentionCandidate[]) {
      const events = retention.given(history).when(retain(now, candidates)).accepted();
      history.push(...events);
      return events.map((e) =>
        e.type === 'RecordRemoved'
          ? `removed ${e.data.key} (${e.data.reason})`
          : e.type === 'RenewalRequested'
            ? `renew ${e.data.key} v${e.data.version}`
            : e.type,
      );
    },
  };
};
const at = (days: number) => T0 + days * DAY_MS;

describe('retention decides like a command', () => {
  it('given a record past its retention point whose end a put moved after the candidates were read, then it is not removed', () => {
    const g = given([put('doc', 0, T0), put('doc', 1, at(12), { ends_at: at(40) })]);
    // The candidate was read at version 1, before the put that made version 2.
    expect(g.when(at(12), [{ key: 'doc', version: 1, held: false }])).toEqual([]);
    expect(newest(g.state.records.get('doc'))?.version).toBe(2);
  });

  it('given a record past its retention point, then it is removed; a person record at its end, too', () => {
    const g = given([put('doc', 0, T0), put('pref', 0, T0, { subject_kind: 'person' })]);
    expect(g.when(at(1), [{ key: 'pref', version: 1, held: false }])).toEqual(['removed pref (person_end)']);
    expect(g.when(at(11), [{ key: 'doc', version: 1, held: false }])).toEqual(['removed doc (retention)']);
    expect(g.state.records.size).toBe(0);
  });

  it('holds still win: a held record is never removed', () => {
    const g = given([put('doc', 0, T0), put('pref', 0, T0, { subject_kind: 'person' })]);
    expect(
      g.when(at(20), [
        { key: 'doc', version: 1, held: true },
        { key: 'pref', version: 1, held: true },
      ]),
    ).toEqual([]);
  });

  it('asks once per version for renewal, never for a closed or deleted record', () => {
    const g = given([
      put('kept', 0, T0),
      put('shut', 0, T0),
      put('shut', 1, T0, { closed: true }),
      put('gone', 0, T0),
      put('gone', 1, T0, { state: 'deleted' }),
    ]);
    const all = ['kept', 'shut', 'gone'].map((key) => ({ key, version: newest(g.state.records.get(key))!.version, held: false }));
    expect(g.when(at(2), all)).toEqual(['renew kept v1']);
    expect(g.when(at(3), all)).toEqual([]);
  });

  it('never removes a record whose newest version has not reached its retention point, whatever the candidates say', () => {
    const op = fc.record({
      key: fc.constantFrom('a', 'b', 'c'),
      days: fc.integer({ min: 0, max: 30 }),
      end: fc.integer({ min: 1, max: 40 }),
      person: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 12 }),
        fc.integer({ min: 0, max: 80 }),
        fc.uniqueArray(fc.record({ key: fc.constantFrom('a', 'b', 'c'), version: fc.integer({ min: 1, max: 4 }), held: fc.boolean() }), {
          selector: (c) => c.key,
        }),
        (ops, nowDays, candidates) => {
          const sorted = [...ops].sort((x, y) => x.days - y.days);
          const g = given([]);
          for (const o of sorted) {
            const v = newest(g.state.records.get(o.key))?.version ?? 0;
            g.put(put(o.key, v, at(o.days), { ends_at: at(o.days + o.end), subject_kind: o.person ? 'person' : null }));
          }
          const now = at(Math.max(nowDays, sorted.at(-1)?.days ?? 0));
          const before = new Map([...g.state.records].map(([k, r]) => [k, newest(r)!]));
          for (const line of g.when(now, candidates).filter((l) => l.startsWith('removed'))) {
            const key = line.split(' ')[1]!;
            const v = before.get(key)!;
            const c = candidates.find((x) => x.key === key)!;
            expect(c.held).toBe(false);
            expect(c.version).toBe(v.version);
            expect(v.subject_kind === 'person' ? v.ends_at <= now : v.ends_at + 10 * DAY_MS <= now).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
