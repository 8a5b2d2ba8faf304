import fc from 'fast-check';

type Arbitrary<A> = A extends fc.Arbitrary<infer T> ? T : never;
import { describe, expect, it } from 'vitest';
import { packScope, unpackScope } from '../../../domain/records/snapshot.ts';
import { initialScopeState, type ScopeState, type VersionMeta } from '../../../domain/records/state.ts';

const version = fc.record({
  version: fc.integer({ min: 1, max: 1000 }),
  purpose: fc.constantFrom('', 'routine:a', 'support:b', 'x'.repeat(40)),
  subject_kind: fc.constantFrom('work' as const, 'person' as const),
  closed: fc.boolean(),
  state: fc.constantFrom('active', 'deleted', 'draft'),
  ends_at: fc.integer({ min: 0, max: 2 ** 47 }),
  body_bytes: fc.integer({ min: 0, max: 1 << 20 }),
  dedupe_digest: fc.option(fc.stringMatching(/^[0-9a-f]{64}$/), { nil: null }),
});
const record = fc.record({
  older: fc.array(version, { maxLength: 2 }),
  newest: version,
  everPerson: fc.boolean(),
  renewalAskedFor: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
});

/** A state as the decider would hold it (counters from the newest versions), with request keys. */
const stateOf = (records: Record<string, Arbitrary<typeof record>>): ScopeState => {
  const s = initialScopeState();
  for (const [key, r] of Object.entries(records)) {
    const everPerson = r.everPerson || r.newest.subject_kind === 'person';
    s.records.set(key, { key, versions: [...r.older, r.newest] as VersionMeta[], everPerson, renewalAskedFor: r.renewalAskedFor });
    if (r.newest.state !== 'deleted') {
      s.counted++;
      s.bytes += r.newest.body_bytes;
    }
    s.requests.set(`req-${key}`, { key, version: r.newest.version });
  }
  return s;
};

/** What a snapshot promises to keep: each record's newest version, whether it was ever about a person, its renewal; the counters. */
const kept = (s: ScopeState) => ({
  records: [...s.records.values()].map((r) => ({ key: r.key, newest: r.versions.at(-1), everPerson: r.everPerson, renewalAskedFor: r.renewalAskedFor })),
  counted: s.counted,
  bytes: s.bytes,
});

const format1 = (s: ScopeState) =>
  JSON.stringify({
    format: 1,
    records: [...s.records.values()].map((r) => {
      const v = r.versions.at(-1)!;
      return [
        r.key,
        v.version,
        v.purpose,
        v.subject_kind === 'person' ? 1 : 0,
        v.closed ? 1 : 0,
        v.state,
        v.ends_at,
        v.body_bytes,
        v.dedupe_digest,
        r.everPerson ? 1 : 0,
        r.renewalAskedFor,
      ];
    }),
  });

describe('scope snapshots', () => {
  it('given any scope state, when packed and unpacked, then the decider sees the same newest versions, history flags and counters (no request keys)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), record, { maxKeys: 30 }), (records) => {
        const s = stateOf(records);
        const back = unpackScope(packScope(s));
        expect(back).not.toBeNull();
        expect(kept(back!)).toEqual(kept(s));
        expect(back!.requests.size).toBe(0);
        for (const r of back!.records.values()) expect(r.versions).toHaveLength(1);
      }),
    );
  });

  it('given a snapshot written in format 1 by an earlier build, when unpacked, then it reads as the same state', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), record, { maxKeys: 30 }), (records) => {
        const s = stateOf(records);
        expect(kept(unpackScope(format1(s))!)).toEqual(kept(s));
      }),
    );
  });

  it('given a snapshot of an unknown format or with columns that disagree, when unpacked, then it is not read (the stream is replayed instead)', () => {
    expect(unpackScope(JSON.stringify({ format: 3, keys: [] }))).toBeNull();
    const packed = JSON.parse(
      packScope(
        stateOf({
          a: {
            older: [],
            newest: { version: 1, purpose: '', subject_kind: 'work', closed: false, state: 'active', ends_at: 1, body_bytes: 1, dedupe_digest: null },
            everPerson: false,
            renewalAskedFor: null,
          },
        }),
      ),
    );
    expect(unpackScope(JSON.stringify({ ...packed, versions: [] }))).toBeNull();
    expect(unpackScope(JSON.stringify({ ...packed, purpose: [7] }))).toBeNull();
  });
});
