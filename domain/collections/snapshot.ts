import { postingKey, type AgentState, type Declared, type KeptRecord, type Posting } from './state.ts';
import { openSnapshot, sealSnapshot } from '../shared/sealed-snapshot.ts';
import { KeyedMap } from '../shared/keyed-map.ts';
import { keyedFrom, type Keyed } from '../shared/keyed.ts';
import { mapOfStubs, packMap, type PackedPart, type WrittenParts } from '../shared/snapshot-parts.ts';

/**
 * An agent's records stream folded up to a revision, as a snapshot MACed under the tenant's
 * envelope key: a cold instance starts the agent's fold from it and the events after it (each
 * MAC-checked by the store), not from the stream's first event. A snapshot whose MAC does not
 * hold is ignored (the stream is folded whole).
 *
 * Format 2: a head holding the collections, the forgotten names, the counters and, for the
 * records (key → record) and the query index (collection, field, digest → the records holding
 * it, with their createdAt), each map's size and its parts' digests; each part (at most 256 a
 * map) a row of its own, used only under the digest its head names. A cold get or put reads the
 * head and the record's part (a put, the index parts it changes too); a query by a field, the
 * index part of each value asked, then the parts of the records it answers. A query with no
 * field, an export, a forget and a declaration that indexes kept records read every part.
 * Format 1 (the whole state in one row, column by column) is still read, once, on an upgrade.
 */
const FORMAT = 2;
const LEGACY = 1;

const KIND = 'agent-snapshot';

interface Columns {
  readonly collections: [string, Declared][];
  readonly forgotten: [string, number][];
  readonly seq: number;
  readonly lastCreated: number;
  readonly keys: string[];
  readonly collection: string[];
  readonly id: string[];
  readonly rseq: number[];
  /** The sealed values' key ids, nonces and ciphertexts. */
  readonly k: string[];
  readonly n: string[];
  readonly c: string[];
  readonly created: number[];
  readonly updated: number[];
  /** Each record's index as [field, digest, field, digest, …]. */
  readonly index: string[][];
}

/** A legacy (format 1) snapshot's text: kept so the upgrade from it stays tested. */
export const packAgentLegacy = (s: AgentState, stream: string, revision: number, mac: (input: string) => string): string => {
  const c: Columns = {
    collections: [...s.collections],
    forgotten: [...s.forgotten],
    seq: s.seq,
    lastCreated: s.lastCreated,
    keys: [],
    collection: [],
    id: [],
    rseq: [],
    k: [],
    n: [],
    c: [],
    created: [],
    updated: [],
    index: [],
  };
  for (const [key, r] of s.records) {
    c.keys.push(key);
    c.collection.push(r.collection);
    c.id.push(r.id);
    c.rseq.push(r.seq);
    c.k.push(r.value.k);
    c.n.push(r.value.n);
    c.c.push(r.value.c);
    c.created.push(r.created_ms);
    c.updated.push(r.updated_ms);
    c.index.push(r.index.flat());
  }
  const text = JSON.stringify(c);
  return sealSnapshot(KIND, String(LEGACY), text, stream, revision, mac);
};

const columns = ['keys', 'collection', 'id', 'rseq', 'k', 'n', 'c', 'created', 'updated', 'index'] as const;

/** A format-1 snapshot's state, whole (its query index built from its records). */
const unpackLegacy = (packed: string, stream: string, revision: number, mac: (input: string) => string): AgentState | null => {
  const text = openSnapshot(packed, KIND, String(LEGACY), stream, revision, mac);
  if (text === null) return null;
  const c = JSON.parse(text) as Columns;
  if (typeof c !== 'object' || c === null || !Array.isArray(c.collections) || !Array.isArray(c.forgotten)) return null;
  if (typeof c.seq !== 'number' || typeof c.lastCreated !== 'number' || !columns.every((name) => Array.isArray(c[name]) && c[name].length === c.keys.length))
    return null;
  const records: [string, KeptRecord][] = [];
  const postings = new Map<string, Posting[]>();
  for (let i = 0; i < c.keys.length; i++) {
    const flat = c.index[i]!;
    const index: [string, string][] = [];
    for (let j = 0; j + 1 < flat.length; j += 2) {
      index.push([flat[j]!, flat[j + 1]!]);
      const key = postingKey(c.collection[i]!, flat[j]!, flat[j + 1]!);
      const list = postings.get(key) ?? [];
      list.push({ id: c.id[i]!, created_ms: c.created[i]! });
      postings.set(key, list);
    }
    records.push([
      c.keys[i]!,
      {
        collection: c.collection[i]!,
        id: c.id[i]!,
        seq: c.rseq[i]!,
        value: { k: c.k[i]!, n: c.n[i]!, c: c.c[i]! },
        created_ms: c.created[i]!,
        updated_ms: c.updated[i]!,
        index,
      },
    ]);
  }
  return {
    collections: new Map(c.collections),
    records: new KeyedMap(keyedFrom(records)),
    postings: new KeyedMap(keyedFrom(postings)),
    forgotten: new Map(c.forgotten),
    seq: c.seq,
    lastCreated: c.lastCreated,
  };
};

/** An agent state as a snapshot takes it: persistent maps and copies of the small rest, packed after the command that left them is answered. */
export interface AgentTaken {
  readonly collections: [string, Declared][];
  readonly forgotten: [string, number][];
  readonly seq: number;
  readonly lastCreated: number;
  readonly records: Keyed<KeptRecord>;
  readonly postings: Keyed<readonly Posting[]>;
}

export const takeAgent = (s: AgentState): AgentTaken => ({
  collections: [...s.collections],
  forgotten: [...s.forgotten],
  seq: s.seq,
  lastCreated: s.lastCreated,
  records: s.records.map,
  postings: s.postings.map,
});

export interface PackedAgent {
  readonly head: string;
  /** The parts the head names that this writer has not written yet: written before the head. */
  readonly parts: readonly PackedPart[];
}

export const packAgent = (
  t: AgentTaken,
  stream: string,
  revision: number,
  mac: (input: string) => string,
  written: WrittenParts = new WeakMap(),
): PackedAgent => {
  const parts: PackedPart[] = [];
  const text = JSON.stringify({
    collections: t.collections,
    forgotten: t.forgotten,
    seq: t.seq,
    lastCreated: t.lastCreated,
    records: packMap(t.records, stream, 'records', written, parts),
    postings: packMap(t.postings, stream, 'postings', written, parts),
  });
  return { head: sealSnapshot(KIND, String(FORMAT), text, stream, revision, mac), parts };
};

/**
 * The state a stored snapshot holds — from a head, its maps' parts as stubs (read when looked
 * into); from a format-1 row, whole — or null: a MAC that does not hold, a shape this build
 * does not read (the stream is then folded whole).
 */
export const unpackAgent = (packed: string, stream: string, revision: number, mac: (input: string) => string): AgentState | null => {
  const text = openSnapshot(packed, KIND, String(FORMAT), stream, revision, mac);
  if (text === null) return unpackLegacy(packed, stream, revision, mac);
  const h = JSON.parse(text) as Record<string, unknown>;
  if (typeof h !== 'object' || h === null || !Array.isArray(h.collections) || !Array.isArray(h.forgotten)) return null;
  if (typeof h.seq !== 'number' || typeof h.lastCreated !== 'number') return null;
  const records = mapOfStubs<KeptRecord>(h.records, stream, 'records');
  const postings = mapOfStubs<readonly Posting[]>(h.postings, stream, 'postings');
  if (!records || !postings) return null;
  return {
    collections: new Map(h.collections as [string, Declared][]),
    records: new KeyedMap(records),
    postings: new KeyedMap(postings),
    forgotten: new Map(h.forgotten as [string, number][]),
    seq: h.seq,
    lastCreated: h.lastCreated,
  };
};
