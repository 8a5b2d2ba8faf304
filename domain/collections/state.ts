import type { Sealed } from '../records/events.ts';
import type { CollectionEvent, IndexEntry } from './events.ts';

export interface KeptRecord {
  readonly collection: string;
  readonly id: string;
  readonly seq: number;
  /** The value as the log holds it, sealed: reads open it with the record's data key. */
  readonly value: Sealed;
  readonly created_ms: number;
  readonly updated_ms: number;
  /** field → digest of its value, for the declared fields the value gives the index. */
  readonly index: Map<string, string>;
}

export interface Declared {
  readonly people: string[];
  readonly fields: string[];
}

/** One agent's records in one tenant: the stream `agent:<tenant>:<agent>` folded. */
export interface AgentState {
  /** Insertion order is the order first declared. */
  readonly collections: Map<string, Declared>;
  readonly records: Map<string, KeptRecord>;
  /** Digest of a forgotten name → when it was last forgotten. */
  readonly forgotten: Map<string, number>;
  /** The last data-key version used (each put seals under a fresh one). */
  seq: number;
  /** The newest createdAt given: createdAt only grows, so paging never skips a later record. */
  lastCreated: number;
}

export const recordKey = (collection: string, id: string) => `${collection}/${id}`;

export const initialAgentState = (): AgentState => ({ collections: new Map(), records: new Map(), forgotten: new Map(), seq: 0, lastCreated: 0 });

/** Merges a declaration: nothing declared before is ever taken away; a name in `people` is a person field. */
export const mergeDeclaration = (current: Declared | undefined, people: readonly string[], fields: readonly string[]): Declared => {
  const p = [...(current?.people ?? [])];
  const f = [...(current?.fields ?? [])];
  for (const name of people) if (!p.includes(name)) p.push(name);
  for (const name of fields) if (!f.includes(name) && !p.includes(name)) f.push(name);
  return { people: p, fields: f.filter((n) => !p.includes(n)) };
};

const withIndex = (index: Map<string, string>, entries: readonly IndexEntry[]) => {
  for (const e of entries) index.set(e.field, e.digest);
  return index;
};

/**
 * Updates the state it is given: a fold owns its state, and copying 10,000 records on every
 * event would make a fold quadratic (the handler's cache relies on this, see commands/handle.ts).
 */
export const evolveAgent = (state: AgentState, event: CollectionEvent): AgentState => {
  switch (event.type) {
    case 'AgentCollectionsDeclared': {
      const d = event.data;
      for (const c of d.collections) state.collections.set(c.name, mergeDeclaration(state.collections.get(c.name), c.people, c.fields));
      for (const r of d.indexed) {
        const kept = state.records.get(recordKey(r.collection, r.id));
        if (kept) withIndex(kept.index, r.index);
      }
      return state;
    }
    case 'AgentRecordPut': {
      const d = event.data;
      state.records.set(recordKey(d.collection, d.id), {
        collection: d.collection,
        id: d.id,
        seq: d.seq,
        value: d.value,
        created_ms: d.created_ms,
        updated_ms: d.updated_ms,
        index: withIndex(new Map(), d.index),
      });
      state.seq = Math.max(state.seq, d.seq);
      state.lastCreated = Math.max(state.lastCreated, d.created_ms);
      return state;
    }
    case 'AgentRecordDeleted':
      state.records.delete(recordKey(event.data.collection, event.data.id));
      return state;
    case 'AgentPersonForgotten': {
      const d = event.data;
      for (const r of d.records) state.records.delete(recordKey(r.collection, r.id));
      for (const name of d.names) state.forgotten.set(name, Math.max(state.forgotten.get(name) ?? 0, d.forgotten_ms));
      return state;
    }
  }
};

/** Whether a kept record names one of `names` (digests) in a field its collection declares as people. */
export const namesPerson = (state: AgentState, record: KeptRecord, names: ReadonlySet<string>): boolean => {
  const people = state.collections.get(record.collection)?.people ?? [];
  return people.some((field) => {
    const digest = record.index.get(field);
    return digest !== undefined && names.has(digest);
  });
};
