import fc from 'fast-check';

import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { openScope, packScopeSnapshot, takeScope, unpackScope } from '../../../domain/records/snapshot.ts';
import { sealScopeSnapshot } from '../../../domain/records/snapshot-mac.ts';
import { evolveScope, initialScopeState, newest, type OpenedRecordEvent, type ScopeState, type VersionMeta } from '../../../domain/records/state.ts';
import { decidePut, type PutRecord } from '../../../domain/records/decide.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import { PartsMissing } from '../../../domain/shared/keyed.ts';
import { openPart } from '../../../domain/shared/snapshot-parts.ts';
import { createHmac } from 'node:crypto';

const version = fc.record({
  version: fc.integer({ min: 1, max: 1000 }),
  purpose: fc.constantFrom('', 'routine:a', 'support:b', 'x'.repeat(40)),
  subject_kind: fc.constantFrom('work' as const, 'person' as const),
  closed: fc.boolean(),
  state: fc.constantFrom('active', 'deleted', 'draft'),
  ends_at: fc.integer({ min: 0, max: 2 ** 47 }),
  body_bytes: fc.integer({ min: 0, max: 1 << 20 }),
  dedupe_digest: fc.option(fc.constantFrom('d1', 'd2', 'd3'), { nil: null }),
});
const record = fc.record({
  newest: version,
  everPerson: fc.boolean(),
  renewalAskedFor: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
});

const STREAM = 'records:acme:notes:tenant';
const mac = (input: string) => createHmac('sha256', 'k').update(input).digest('base64url');

/** A state as the decider would hold it (counters and the dedupe index from the newest versions), with request keys. */
const stateOf = (records: Record<string, { newest: VersionMeta; everPerson: boolean; renewalAskedFor: number | null }>): ScopeState => {
  const s = initialScopeState();
  for (const [key, r] of Object.entries(records)) {
    const everPerson = r.everPerson || r.newest.subject_kind === 'person';
    s.records.set(key, { key, latest: r.newest, everPerson, renewalAskedFor: r.renewalAskedFor });
    if (r.newest.dedupe_digest !== null) s.dedupe.set(r.newest.dedupe_digest, [...(s.dedupe.get(r.newest.dedupe_digest) ?? []), { key, latest: r.newest }]);
    if (r.newest.state !== 'deleted') {
      s.counted++;
      s.bytes += r.newest.body_bytes;
    }
    s.requests.set(`req-${key}`, { key, version: r.newest.version });
  }
  return s;
};

/** What a snapshot promises to keep: each record's newest version, whether it was ever about a person, its renewal; the dedupe index; the counters. */
const kept = (s: ScopeState) => ({
  records: [...s.records.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
  dedupe: [...s.dedupe.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([d, holders]) => [d, [...holders].sort((a, b) => (a.key < b.key ? -1 : 1))]),
  counted: s.counted,
  bytes: s.bytes,
});

/** The legacy texts (formats 1 and 2: the whole scope in one row), as earlier builds wrote them. */
const format1 = (s: ScopeState) =>
  JSON.stringify({
    format: 1,
    records: [...s.records.values()].map((r) => {
      const v = r.latest;
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
const format2 = (s: ScopeState) => {
  const rs = [...s.records.values()];
  const purposes = [...new Set(rs.map((r) => r.latest.purpose))];
  const states = [...new Set(rs.map((r) => r.latest.state))];
  return JSON.stringify({
    format: 2,
    keys: rs.map((r) => r.key),
    versions: rs.map((r) => r.latest.version),
    purposes,
    purpose: rs.map((r) => purposes.indexOf(r.latest.purpose)),
    states,
    state: rs.map((r) => states.indexOf(r.latest.state)),
    flags: rs.map((r) => (r.latest.subject_kind === 'person' ? 1 : 0) | (r.latest.closed ? 2 : 0) | (r.everPerson ? 4 : 0)),
    ends_at: rs.map((r) => r.latest.ends_at),
    body_bytes: rs.map((r) => r.latest.body_bytes),
    digest: rs.map((r) => r.latest.dedupe_digest),
    renewal: rs.map((r) => r.renewalAskedFor),
  });
};

/** A snapshot written and read back on a cold instance: the head opened, then every part it names read (as the handler reads them). */
const throughSnapshot = (s: ScopeState, edit?: (text: string) => string) => {
  const { head, parts } = packScopeSnapshot(takeScope(s), STREAM, 41, mac);
  const rows = new Map(parts.map((p) => [p.key, edit ? edit(p.text) : p.text]));
  const back = openScope(head, STREAM, 41, mac);
  expect(back).not.toBeNull();
  return { back: back!, rows, parts };
};
const readAll = (back: ScopeState, rows: Map<string, string>) => {
  for (;;) {
    try {
      return kept(back);
    } catch (error) {
      if (!(error instanceof PartsMissing)) throw error;
      for (const stub of error.parts) {
        const node = openPart(stub, rows.get(stub.key)!);
        if (!node) return null;
        stub.node = node as typeof stub.node;
      }
    }
  }
};

describe('scope snapshots', () => {
  it('given any scope state, when its head and parts are written and read back, then the decider sees the same newest versions, history flags, dedupe index and counters (no request keys)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), record, { maxKeys: 300 }), (records) => {
        const s = stateOf(records);
        const { back, rows } = throughSnapshot(s);
        expect(back.requests.size).toBe(0);
        expect(back.counted).toBe(s.counted);
        expect(readAll(back, rows)).toEqual(kept(s));
      }),
    );
  });

  it('given a cold state from a head, when a put is decided, then only the parts under its key and its digest are read, and it decides as the state it was taken from', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), record, { minKeys: 1, maxKeys: 300 }),
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.option(fc.constantFrom('d1', 'd2', 'd3'), { nil: null }),
        fc.integer({ min: 0, max: 3 }),
        (records, key, digest, expectV) => {
          const s = stateOf(records);
          const { back, rows, parts } = throughSnapshot(s);
          const now = 2 ** 46;
          const command: PutRecord = {
            tenant: 'acme',
            plugin: 'notes',
            settings: defaultSettings(),
            writer: { job: 'j', run: 1, call: 'c', step: 1, agent: 'a', plugin: 'notes', purpose: 'routine:a', data_subject: null, labels: [], tainted: false },
            request_key: 'rk',
            scope: 'tenant',
            key,
            expect: expectV === 0 ? (newest(s.records.get(key))?.version ?? 0) : expectV,
            kind: 'note',
            state: 'active',
            supersedes: null,
            ends_at: null,
            subject_kind: null,
            closed: false,
            body: { k: '', n: '', c: '' },
            body_bytes: 3,
            dedupe_digest: digest,
            now,
          };
          let read = 0;
          let cold: ReturnType<typeof decidePut>;
          for (;;) {
            try {
              cold = decidePut(command, back);
              const events = E.isRight(cold) ? cold.right : [];
              // Its fold looks into nothing else either.
              events.reduce((st, e: OpenedRecordEvent) => evolveScope(st, e), back);
              break;
            } catch (error) {
              if (!(error instanceof PartsMissing)) throw error;
              for (const stub of error.parts) {
                stub.node = openPart(stub, rows.get(stub.key)!) as typeof stub.node;
                read++;
              }
            }
          }
          const warm = decidePut(command, s);
          expect(cold).toEqual(warm);
          // The record's part, the dedupe parts of its old and new digests: at most three, of up to 2 × 256.
          expect(read).toBeLessThanOrEqual(3);
          if (parts.length > 6) expect(read).toBeLessThan(parts.length);
        },
      ),
    );
  });

  it("given a part whose text was edited (or is another snapshot's), when it is read back, then it is never used", () => {
    const s = stateOf(
      Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [
          `r-${i}`,
          {
            newest: { version: 1, purpose: '', subject_kind: 'work' as const, closed: false, state: 'active', ends_at: 9, body_bytes: 1, dedupe_digest: null },
            everPerson: false,
            renewalAskedFor: null,
          },
        ]),
      ),
    );
    const edited = throughSnapshot(s, (text) => text.replace('"version":1', '"version":7'));
    expect(readAll(edited.back, edited.rows)).toBeNull();
    // A part of another snapshot under the same row key: its digest is not the one this head names.
    const other = stateOf({ 'r-0': { newest: { ...s.records.get('r-0')!.latest, version: 2 }, everPerson: false, renewalAskedFor: null } });
    const swapped = throughSnapshot(s);
    const theirs = packScopeSnapshot(takeScope(other), STREAM, 42, mac).parts;
    for (const p of theirs) if (swapped.rows.has(p.key)) swapped.rows.set(p.key, p.text);
    expect(readAll(swapped.back, swapped.rows)).toBeNull();
  });

  it('given a head edited, moved to another stream or revision, or unsealed, when opened, then it is not used', () => {
    const s = stateOf({
      a: {
        newest: { version: 1, purpose: '', subject_kind: 'work', closed: false, state: 'active', ends_at: 1, body_bytes: 1, dedupe_digest: null },
        everPerson: false,
        renewalAskedFor: null,
      },
    });
    const { head } = packScopeSnapshot(takeScope(s), STREAM, 41, mac);
    expect(openScope(head, STREAM, 41, mac)).not.toBeNull();
    expect(openScope(head.replace('"counted":1', '"counted":0'), STREAM, 41, mac)).toBeNull();
    expect(openScope(head, STREAM, 42, mac)).toBeNull();
    expect(openScope(head, 'records:acme:notes:project:x', 41, mac)).toBeNull();
    expect(openScope(head.slice(head.indexOf('.', 3) + 1), STREAM, 41, mac)).toBeNull();
  });

  it('given a legacy snapshot (format 2, sealed), when opened, then it reads as the same state', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), record, { maxKeys: 30 }), (records) => {
        const s = stateOf(records);
        const back = openScope(sealScopeSnapshot(format2(s), STREAM, 41, mac), STREAM, 41, mac);
        expect(kept(back!)).toEqual(kept(s));
      }),
    );
  });

  it('given a snapshot written in format 1 by an earlier build, when unpacked, then it reads as the same state', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), record, { maxKeys: 30 }), (records) => {
        const s = stateOf(records);
        expect(kept(unpackScope(format1(s))!)).toEqual(kept(s));
        expect(kept(unpackScope(format2(s))!)).toEqual(kept(s));
      }),
    );
  });

  it('given a snapshot of an unknown format or with columns that disagree, when unpacked, then it is not read (the stream is replayed instead)', () => {
    expect(unpackScope(JSON.stringify({ format: 3, keys: [] }))).toBeNull();
    const packed = JSON.parse(
      format2(
        stateOf({
          a: {
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
