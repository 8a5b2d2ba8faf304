import { initialScopeState, type ScopeState, type VersionMeta } from './state.ts';

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
 * Format 2 keeps the same facts column by column (one array per field, the few distinct
 * purposes and states as indexes into small tables): a 20,000-record scope parses into a
 * dozen arrays instead of 20,000 small ones, which is most of a cold first put's cost.
 * Format 1 (one array per record) is still read.
 */
const FORMAT = 2;

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

/**
 * A scope state as text, without its request keys (those are checked against the request-keys read model
 * and need not live in memory) and without older versions (the decider reads only the newest,
 * whether the record was ever about a person, and the version last asked to renew).
 */
export const packScope = (s: ScopeState): string => {
  const c: Columns = {
    format: FORMAT,
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
  };
  const purposes = new Map<string, number>();
  const states = new Map<string, number>();
  const indexIn = (table: string[], index: Map<string, number>, value: string) => {
    let i = index.get(value);
    if (i === undefined) index.set(value, (i = table.push(value) - 1));
    return i;
  };
  for (const r of s.records.values()) {
    const v = r.versions.at(-1);
    if (!v) continue;
    c.keys.push(r.key);
    c.versions.push(v.version);
    c.purpose.push(indexIn(c.purposes, purposes, v.purpose));
    c.state.push(indexIn(c.states, states, v.state));
    c.flags.push((v.subject_kind === 'person' ? 1 : 0) | (v.closed ? 2 : 0) | (r.everPerson ? 4 : 0));
    c.ends_at.push(v.ends_at);
    c.body_bytes.push(v.body_bytes);
    c.digest.push(v.dedupe_digest);
    c.renewal.push(r.renewalAskedFor);
  }
  return JSON.stringify(c);
};

const add = (s: ScopeState, key: string, v: VersionMeta, everPerson: boolean, renewal: number | null) => {
  s.records.set(key, { key, versions: [v], everPerson, renewalAskedFor: renewal });
  if (v.state !== 'deleted') {
    s.counted += 1;
    s.bytes += v.body_bytes;
  }
};

const fromRows = (rows: Packed[]) => {
  const s = initialScopeState();
  for (const [key, version, purpose, person, closed, state, ends_at, body_bytes, digest, ever, renewal] of rows)
    add(
      s,
      key,
      { version, purpose, subject_kind: person ? 'person' : 'work', closed: closed === 1, state, ends_at, body_bytes, dedupe_digest: digest },
      ever === 1,
      renewal,
    );
  return s;
};

const fromColumns = (c: Columns) => {
  const s = initialScopeState();
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
  return s;
};

/** The state a snapshot holds, or null for a format this build does not read (the stream is then replayed). */
export const unpackScope = (text: string): ScopeState | null => {
  const parsed = JSON.parse(text) as { format?: unknown; records?: unknown; keys?: unknown };
  if (parsed.format === 1 && Array.isArray(parsed.records)) return fromRows(parsed.records as Packed[]);
  if (parsed.format === 2 && Array.isArray(parsed.keys)) return fromColumns(parsed as unknown as Columns);
  return null;
};
