import type { AgentState, Declared, KeptRecord } from './state.ts';
import { openSnapshot, sealSnapshot } from '../shared/sealed-snapshot.ts';

/**
 * An agent's records stream folded up to a revision, as snapshot text MACed under the tenant's
 * envelope key: a cold instance starts the agent's fold from it and the events after it (each
 * MAC-checked by the store), not from the stream's first event. The records are kept column by
 * column (one array per field), so 10,000 records parse into a few arrays, not 10,000 objects
 * of objects. A snapshot whose MAC does not hold is ignored (the stream is folded whole).
 */
const FORMAT = 1;

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

export const packAgent = (s: AgentState, stream: string, revision: number, mac: (input: string) => string): string => {
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
    c.index.push([...r.index].flat());
  }
  const text = JSON.stringify(c);
  return sealSnapshot(KIND, String(FORMAT), text, stream, revision, mac);
};

const columns = ['keys', 'collection', 'id', 'rseq', 'k', 'n', 'c', 'created', 'updated', 'index'] as const;

/** The state, or null: another format, a MAC that does not hold, a shape this build does not read. */
export const unpackAgent = (packed: string, stream: string, revision: number, mac: (input: string) => string): AgentState | null => {
  const text = openSnapshot(packed, KIND, String(FORMAT), stream, revision, mac);
  if (text === null) return null;
  const c = JSON.parse(text) as Columns;
  if (typeof c !== 'object' || c === null || !Array.isArray(c.collections) || !Array.isArray(c.forgotten)) return null;
  if (typeof c.seq !== 'number' || typeof c.lastCreated !== 'number' || !columns.every((name) => Array.isArray(c[name]) && c[name].length === c.keys.length))
    return null;
  const records = new Map<string, KeptRecord>();
  for (let i = 0; i < c.keys.length; i++) {
    const flat = c.index[i]!;
    const index = new Map<string, string>();
    for (let j = 0; j + 1 < flat.length; j += 2) index.set(flat[j]!, flat[j + 1]!);
    records.set(c.keys[i]!, {
      collection: c.collection[i]!,
      id: c.id[i]!,
      seq: c.rseq[i]!,
      value: { k: c.k[i]!, n: c.n[i]!, c: c.c[i]! },
      created_ms: c.created[i]!,
      updated_ms: c.updated[i]!,
      index,
    });
  }
  return { collections: new Map(c.collections), records, forgotten: new Map(c.forgotten), seq: c.seq, lastCreated: c.lastCreated };
};
