import { initialScopeState, type RecordMeta, type ScopeState } from './state.ts';

/** One record as a snapshot keeps it: its newest version and what the decider reads about its past. */
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

const FORMAT = 1;

/**
 * A scope state as text, without its request keys (those are checked against the request-keys read model
 * and need not live in memory) and without older versions (the decider reads only the newest,
 * whether the record was ever about a person, and the version last asked to renew).
 */
export const packScope = (s: ScopeState): string => {
  const records: Packed[] = [];
  for (const r of s.records.values()) {
    const v = r.versions.at(-1);
    if (!v) continue;
    records.push([
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
    ]);
  }
  return JSON.stringify({ format: FORMAT, records });
};

/** The state a snapshot holds, or null for a format this build does not read (the stream is then replayed). */
export const unpackScope = (text: string): ScopeState | null => {
  const parsed = JSON.parse(text) as { format?: unknown; records?: Packed[] };
  if (parsed.format !== FORMAT || !Array.isArray(parsed.records)) return null;
  const s = initialScopeState();
  for (const [key, version, purpose, person, closed, state, ends_at, body_bytes, digest, ever, renewal] of parsed.records) {
    const meta: RecordMeta = {
      key,
      versions: [{ version, purpose, subject_kind: person ? 'person' : 'work', closed: closed === 1, state, ends_at, body_bytes, dedupe_digest: digest }],
      everPerson: ever === 1,
      renewalAskedFor: renewal,
    };
    s.records.set(key, meta);
    if (state !== 'deleted') {
      s.counted += 1;
      s.bytes += body_bytes;
    }
  }
  return s;
};
