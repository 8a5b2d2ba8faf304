import type { Holder, RecordMeta, ScopeState, VersionMeta } from './state.ts';
import { KeyedMap } from '../shared/keyed-map.ts';
import { keyedFrom, type Keyed } from '../shared/keyed.ts';
import { mapOfStubs, packMap, type PackedPart, type WrittenParts } from '../shared/snapshot-parts.ts';
import { openSnapshot, sealSnapshot } from '../shared/sealed-snapshot.ts';
import type { EnvelopeMac } from '../ports/envelope-macs.ts';
import { openScopeSnapshot } from './snapshot-mac.ts';

/** One record as a format-1 snapshot keeps it: its newest version and what the decider reads about its past. */
type Packed = [
  key: string,
  version: number,
  purpose: string,
  person: 0 | 1,
  closed: 0 | 1,
  state: string,
  ends_at: number,
  body_bytes: number,
  digest: string | null,
  ever_person: 0 | 1,
  renewal: number | null,
];

/**
 * Legacy formats, still read (an upgrade's first cold load, then the next snapshot is a head
 * and parts): format 2 keeps the scope's newest versions column by column in one row (one
 * array per field, the few distinct purposes and states as indexes into small tables); format
 * 1, one array per record.
 */

interface Columns {
  readonly format: 2;
  readonly keys: string[];
  readonly versions: number[];
  readonly purposes: string[];
  readonly purpose: number[];
  readonly states: string[];
  readonly state: number[];
  /** Bit 0: about a person; bit 1: closed; bit 2: ever about a person. */
  readonly flags: number[];
  readonly ends_at: number[];
  readonly body_bytes: number[];
  readonly digest: (string | null)[];
  readonly renewal: (number | null)[];
}

/** A legacy snapshot's records, gathered and then built into the state's maps at once. */
interface Gathered {
  readonly records: [string, RecordMeta][];
  readonly dedupe: Map<string, Holder[]>;
  counted: number;
  bytes: number;
}
const gathered = (): Gathered => ({ records: [], dedupe: new Map(), counted: 0, bytes: 0 });

const add = (s: Gathered, key: string, v: VersionMeta, everPerson: boolean, renewal: number | null) => {
  s.records.push([key, { key, latest: v, everPerson, renewalAskedFor: renewal }]);
  if (v.dedupe_digest !== null) {
    const holders = s.dedupe.get(v.dedupe_digest);
    if (holders) holders.push({ key, latest: v });
    else s.dedupe.set(v.dedupe_digest, [{ key, latest: v }]);
  }
  if (v.state !== 'deleted') {
    s.counted += 1;
    s.bytes += v.body_bytes;
  }
};

const built = (g: Gathered): ScopeState => ({
  records: new KeyedMap(keyedFrom(g.records)),
  dedupe: new KeyedMap(keyedFrom(g.dedupe)),
  requests: new KeyedMap(),
  counted: g.counted,
  bytes: g.bytes,
});

const fromRows = (rows: Packed[]) => {
  const s = gathered();
  for (const [key, version, purpose, person, closed, state, ends_at, body_bytes, digest, ever, renewal] of rows)
    add(
      s,
      key,
      { version, purpose, subject_kind: person ? 'person' : 'work', closed: closed === 1, state, ends_at, body_bytes, dedupe_digest: digest },
      ever === 1,
      renewal,
    );
  return built(s);
};

const fromColumns = (c: Columns) => {
  const s = gathered();
  const n = c.keys.length;
  const lengths = [c.versions, c.purpose, c.state, c.flags, c.ends_at, c.body_bytes, c.digest, c.renewal].map((a) => (Array.isArray(a) ? a.length : -1));
  if (lengths.some((l) => l !== n) || !Array.isArray(c.purposes) || !Array.isArray(c.states)) return null;
  for (let i = 0; i < n; i++) {
    const flags = c.flags[i]!;
    const purpose = c.purposes[c.purpose[i]!];
    const state = c.states[c.state[i]!];
    if (purpose === undefined || state === undefined) return null;
    add(
      s,
      c.keys[i]!,
      {
        version: c.versions[i]!,
        purpose,
        subject_kind: flags & 1 ? 'person' : 'work',
        closed: (flags & 2) !== 0,
        state,
        ends_at: c.ends_at[i]!,
        body_bytes: c.body_bytes[i]!,
        dedupe_digest: c.digest[i]!,
      },
      (flags & 4) !== 0,
      c.renewal[i]!,
    );
  }
  return built(s);
};

/**
 * The state a legacy snapshot's text (formats 1 and 2, the whole scope in one row, sealed as
 * `m1`) holds, or null for a format this build does not read (the stream is then replayed).
 * Read once, on an upgrade: the next snapshot taken is a head and parts.
 */
export const unpackScope = (text: string): ScopeState | null => {
  const parsed = JSON.parse(text) as { format?: unknown; records?: unknown; keys?: unknown };
  if (parsed.format === 1 && Array.isArray(parsed.records)) return fromRows(parsed.records as Packed[]);
  if (parsed.format === 2 && Array.isArray(parsed.keys)) return fromColumns(parsed as unknown as Columns);
  return null;
};

/**
 * Format p1: a head MACed under the tenant's envelope key (over kind, format, stream, revision
 * and text) holding the caps' counters and, for the records (key → newest version) and the
 * dedupe index (digest → keys), each map's size and its parts' digests; each part (at most 256
 * a map, a level-2 node of its trie) a row of its own, used only under the digest its head
 * names. A cold put reads the head and the parts it looks into: the record under its key and
 * the keys holding its digest (and every part only when a scan must run: a cap reached with
 * ended person records to discount, or the 20,000 live records). A part unchanged since the
 * last snapshot is named again by digest, not written again.
 */
const HEAD = 'p1';
const KIND = 'scope-snapshot';
const MAPS = ['records', 'dedupe'] as const;

/** A scope state as a snapshot takes it: persistent values, packed after the command that left them is answered. */
export interface ScopeTaken {
  readonly records: Keyed<RecordMeta>;
  readonly dedupe: Keyed<readonly Holder[]>;
  readonly counted: number;
  readonly bytes: number;
}

export const takeScope = (s: ScopeState): ScopeTaken => ({ records: s.records.map, dedupe: s.dedupe.map, counted: s.counted, bytes: s.bytes });

export interface PackedScope {
  readonly head: string;
  /** The parts the head names that this writer has not written yet: written before the head. */
  readonly parts: readonly PackedPart[];
}

export const packScopeSnapshot = (t: ScopeTaken, stream: string, revision: number, mac: EnvelopeMac, written: WrittenParts = new WeakMap()): PackedScope => {
  const parts: PackedPart[] = [];
  const text = JSON.stringify({
    counted: t.counted,
    bytes: t.bytes,
    records: packMap(t.records, stream, 'records', written, parts),
    dedupe: packMap(t.dedupe, stream, 'dedupe', written, parts),
  });
  return { head: sealSnapshot(KIND, HEAD, text, stream, revision, mac), parts };
};

/**
 * The state a stored scope snapshot holds — from a head, its maps' parts as stubs, read when
 * looked into; from a legacy row, whole — or null: a MAC that does not hold, an unsealed row, a
 * shape this build does not read (the scope is then folded from its log).
 */
export const openScope = (stored: string, stream: string, revision: number, mac: EnvelopeMac): ScopeState | null => {
  const text = openSnapshot(stored, KIND, HEAD, stream, revision, mac);
  if (text === null) {
    const legacy = openScopeSnapshot(stored, stream, revision, mac);
    return legacy === null ? null : unpackScope(legacy);
  }
  const head = JSON.parse(text) as Record<string, unknown>;
  if (typeof head !== 'object' || head === null || typeof head.counted !== 'number' || typeof head.bytes !== 'number') return null;
  const records = mapOfStubs<RecordMeta>(head.records, stream, MAPS[0]);
  const dedupe = mapOfStubs<readonly Holder[]>(head.dedupe, stream, MAPS[1]);
  if (!records || !dedupe) return null;
  return { records: new KeyedMap(records), dedupe: new KeyedMap(dedupe), requests: new KeyedMap(), counted: head.counted, bytes: head.bytes };
};
