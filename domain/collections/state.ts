import type { Sealed } from '../records/events.ts';
import type { CollectionEvent, IndexEntry } from './events.ts';
import { KeyedMap } from '../shared/keyed-map.ts';
import { mergeDeclaration } from '../../clients/typescript/src/declaration.ts';

// One merge for the SDK's check before sending and the state the service keeps.
export { mergeDeclaration };

export interface KeptRecord {
  readonly collection: string;
  readonly id: string;
  readonly seq: number;
  /** The value as the log holds it, sealed: reads open it with the record's data key. */
  readonly value: Sealed;
  readonly created_ms: number;
  readonly updated_ms: number;
  /** [field, digest of its value], for the declared fields the value gives the index. */
  readonly index: readonly (readonly [string, string])[];
}

/** The digest a record's index holds for `field`, if any. */
export const indexed = (record: KeptRecord, field: string): string | undefined => record.index.find((e) => e[0] === field)?.[1];

/** A record in the query index: what a query sorts and pages by, so only the records it answers are read. */
export interface Posting {
  readonly id: string;
  readonly created_ms: number;
}

/** Where the query index keeps the records whose `field` holds `digest` in `collection`. */
export const postingKey = (collection: string, field: string, digest: string) => `${collection}\n${field}\n${digest}`;

export interface Declared {
  readonly people: string[];
  readonly fields: string[];
}

/**
 * One agent's records in one tenant: the stream `agent:<tenant>:<agent>` folded. The records
 * and the query index are persistent maps (`KeyedMap`), so a snapshot takes them as they are
 * and a cold instance holds their parts as stubs, read when a command looks into them; every
 * change of an event is made after every look it needs (a look into a part not read yet leaves
 * the state as it was).
 */
export interface AgentState {
  /** Insertion order is the order first declared. */
  readonly collections: Map<string, Declared>;
  readonly records: KeyedMap<KeptRecord>;
  /** `postingKey(collection, field, digest)` → the records of the collection whose index holds it there. */
  readonly postings: KeyedMap<readonly Posting[]>;
  /** Digest of a forgotten name → when it was last forgotten. */
  readonly forgotten: Map<string, number>;
  /** The last data-key version used (each put seals under a fresh one). */
  seq: number;
  /** The newest createdAt given: createdAt only grows, so paging never skips a later record. */
  lastCreated: number;
}

export const recordKey = (collection: string, id: string) => `${collection}/${id}`;

/**
 * A copy a fold can move on from while this state stays as it was: the records and the index
 * are persistent (shared, never copied), the declarations and the forgotten names are small.
 */
export const copyAgent = (s: AgentState): AgentState => ({
  collections: new Map(s.collections),
  records: new KeyedMap(s.records.map),
  postings: new KeyedMap(s.postings.map),
  forgotten: new Map(s.forgotten),
  seq: s.seq,
  lastCreated: s.lastCreated,
});

export const initialAgentState = (): AgentState => ({
  collections: new Map(),
  records: new KeyedMap(),
  postings: new KeyedMap(),
  forgotten: new Map(),
  seq: 0,
  lastCreated: 0,
});

/** The index with these entries set (a field given again takes its new digest). */
const withIndex = (index: readonly (readonly [string, string])[], entries: readonly IndexEntry[]) => {
  const out = new Map(index);
  for (const e of entries) out.set(e.field, e.digest);
  return [...out];
};

/**
 * The query index's changes when records go from what they were to what they become (null:
 * gone): the postings lists they leave and join, looked up first, then set.
 */
const repost = (state: AgentState, changes: readonly { before: KeptRecord | undefined; after: KeptRecord | null }[]) => {
  const lists = new Map<string, Posting[]>();
  const list = (key: string) => {
    let l = lists.get(key);
    if (!l) lists.set(key, (l = [...(state.postings.get(key) ?? [])]));
    return l;
  };
  const keys = changes.flatMap(({ before, after }) => [
    ...(before?.index ?? []).map(([field, digest]) => postingKey(before!.collection, field, digest)),
    ...(after?.index ?? []).map(([field, digest]) => postingKey(after!.collection, field, digest)),
  ]);
  state.postings.require(keys);
  for (const { before, after } of changes) {
    const id = before?.id ?? after!.id;
    for (const [field, digest] of before?.index ?? []) {
      const l = list(postingKey(before!.collection, field, digest));
      const at = l.findIndex((p) => p.id === id);
      if (at >= 0) l.splice(at, 1);
    }
    if (after) for (const [field, digest] of after.index) list(postingKey(after.collection, field, digest)).push({ id, created_ms: after.created_ms });
  }
  return () => {
    for (const [key, l] of lists)
      if (l.length === 0) state.postings.delete(key);
      else state.postings.set(key, l);
  };
};

/**
 * What an event changes, looked up and ready: every look into the records and the index is
 * made here (a part not read yet throws `PartsMissing`, the state untouched), and the change is
 * the function returned. A handler runs the looks of a decision's events before it decides, so
 * the fold after it never stops half-way.
 */
export const planAgent = (state: AgentState, event: CollectionEvent): (() => AgentState) => {
  switch (event.type) {
    case 'AgentCollectionsDeclared': {
      const d = event.data;
      state.records.require(d.indexed.map((r) => recordKey(r.collection, r.id)));
      const changes = d.indexed.flatMap((r) => {
        const before = state.records.get(recordKey(r.collection, r.id));
        return before ? [{ before, after: { ...before, index: withIndex(before.index, r.index) } }] : [];
      });
      const apply = repost(state, changes);
      return () => {
        for (const c of d.collections) state.collections.set(c.name, mergeDeclaration(state.collections.get(c.name), c.people, c.fields));
        for (const { after } of changes) state.records.set(recordKey(after.collection, after.id), after);
        apply();
        return state;
      };
    }
    case 'AgentRecordPut': {
      const d = event.data;
      const key = recordKey(d.collection, d.id);
      const after: KeptRecord = {
        collection: d.collection,
        id: d.id,
        seq: d.seq,
        value: d.value,
        created_ms: d.created_ms,
        updated_ms: d.updated_ms,
        index: withIndex([], d.index),
      };
      const apply = repost(state, [{ before: state.records.get(key), after }]);
      return () => {
        state.records.set(key, after);
        apply();
        state.seq = Math.max(state.seq, d.seq);
        state.lastCreated = Math.max(state.lastCreated, d.created_ms);
        return state;
      };
    }
    case 'AgentRecordDeleted': {
      const key = recordKey(event.data.collection, event.data.id);
      const before = state.records.get(key);
      if (!before) return () => state;
      const apply = repost(state, [{ before, after: null }]);
      return () => {
        state.records.delete(key);
        apply();
        return state;
      };
    }
    case 'AgentPersonForgotten': {
      const d = event.data;
      state.records.require(d.records.map((r) => recordKey(r.collection, r.id)));
      const gone = d.records.flatMap((r) => {
        const before = state.records.get(recordKey(r.collection, r.id));
        return before ? [{ before, after: null }] : [];
      });
      const apply = repost(state, gone);
      return () => {
        for (const { before } of gone) state.records.delete(recordKey(before.collection, before.id));
        apply();
        for (const name of d.names) state.forgotten.set(name, Math.max(state.forgotten.get(name) ?? 0, d.forgotten_ms));
        return state;
      };
    }
  }
};

/**
 * Updates the state it is given: a fold owns its state, and copying 10,000 records on every
 * event would make a fold quadratic (the handler's cache relies on this, see commands/handle.ts).
 */
export const evolveAgent = (state: AgentState, event: CollectionEvent): AgentState => planAgent(state, event)();

/** Whether a kept record names one of `names` (digests) in a field its collection declares as people. */
export const namesPerson = (state: AgentState, record: KeptRecord, names: ReadonlySet<string>): boolean => {
  const people = state.collections.get(record.collection)?.people ?? [];
  return people.some((field) => {
    const digest = indexed(record, field);
    return digest !== undefined && names.has(digest);
  });
};
