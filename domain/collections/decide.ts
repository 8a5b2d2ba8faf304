import * as E from 'fp-ts/lib/Either.js';
import type { Decider } from '../shared/decider.ts';
import type { Refusal } from '../shared/refusal.ts';
import type { Sealed } from '../records/events.ts';
import type { CollectionDeclaration, CollectionEvent, IndexEntry } from './events.ts';
import { declarationRefusal } from '../../clients/typescript/src/declaration.ts';
import { chars, CONTROL_CHARS, RECORD_LIMITS } from './limits.ts';
import { forgottenWhileRunning, noCollection, recordsRefusal } from './refusals.ts';
import { evolveAgent, initialAgentState, mergeDeclaration, namesPerson, recordKey, type AgentState } from './state.ts';
import { isPlainObject, valueBytes, type Json } from './values.ts';

interface Agent {
  readonly tenant: string;
  readonly agent: string;
  readonly now: number;
}

/**
 * The handler does what a pure core cannot (sealing, keyed digests) before deciding: it folds
 * the stream, computes `sealed`/`index`/`indexed` for the state it folded, and decides again
 * on a conflict, so they always match the state decided on.
 */
export type CollectionCommand =
  | (Agent & {
      readonly kind: 'declare';
      readonly collections: readonly CollectionDeclaration[];
      readonly indexed: readonly { collection: string; id: string; index: IndexEntry[] }[];
    })
  | (Agent & {
      readonly kind: 'put';
      readonly collection: string;
      readonly id: string;
      readonly value: unknown;
      readonly seq: number;
      readonly sealed: Sealed;
      readonly index: readonly IndexEntry[];
      readonly started_ms: number | null;
    })
  | (Agent & { readonly kind: 'delete'; readonly collection: string; readonly id: string })
  | (Agent & { readonly kind: 'forget'; readonly names: readonly string[] });

/**
 * A record's createdAt: kept from its first put, else later than any before it in the agent,
 * so a page's `after` never skips a record put later. It also names the record's incarnation:
 * its data key, so a delete's shredding never reaches a record put again under the same id.
 */
export const createdAtFor = (state: AgentState, collection: string, id: string, now: number) =>
  state.records.get(recordKey(collection, id))?.created_ms ?? Math.max(now, state.lastCreated + 1);

const fmt = (n: number) => n.toLocaleString('en-US');

export const checkId = (id: string): Refusal | null => {
  if (id.length === 0 || chars(id) > RECORD_LIMITS.idMaxChars)
    return recordsRefusal('invalid', `id has ${fmt(chars(id))} characters`, `use 1 to ${RECORD_LIMITS.idMaxChars} characters`);
  if (CONTROL_CHARS.test(id)) return recordsRefusal('invalid', 'id holds a control character', 'remove it');
  return null;
};

/** Every limit of a declaration, checked on the merged result: the SDK's own check, on what this agent declared before. */
export const checkDeclaration = (state: AgentState, collections: readonly CollectionDeclaration[]): Refusal | null =>
  declarationRefusal(state.collections, collections);

/** The fields each collection of a declaration adds to what is declared (what must be indexed for the records kept). */
export const addedFields = (state: AgentState, collections: readonly CollectionDeclaration[]) =>
  collections.map((c) => {
    const before = state.collections.get(c.name);
    const known = new Set([...(before?.people ?? []), ...(before?.fields ?? [])]);
    const after = mergeDeclaration(before, c.people, c.fields);
    return {
      name: c.name,
      isNew: before === undefined,
      people: after.people.filter((f) => !known.has(f)),
      fields: after.fields.filter((f) => !known.has(f)),
    };
  });

const decideDeclare = (c: Extract<CollectionCommand, { kind: 'declare' }>, state: AgentState) => {
  const refused = checkDeclaration(state, c.collections);
  if (refused) return E.left(refused);
  const changes = addedFields(state, c.collections).filter((a) => a.isNew || a.people.length + a.fields.length > 0);
  // The same declaration again (every start of an SDK sends it) adds nothing and writes nothing.
  if (changes.length === 0) return E.right([]);
  const added = new Set(changes.map((a) => a.name));
  return E.right<Refusal, CollectionEvent[]>([
    {
      type: 'AgentCollectionsDeclared',
      data: {
        tenant: c.tenant,
        agent: c.agent,
        collections: c.collections.filter((d) => added.has(d.name)).map((d) => ({ name: d.name, people: [...d.people], fields: [...d.fields] })),
        indexed: c.indexed.filter((r) => r.index.length > 0 && state.records.has(recordKey(r.collection, r.id))),
        declared_ms: c.now,
      },
    },
  ]);
};

const decidePut = (c: Extract<CollectionCommand, { kind: 'put' }>, state: AgentState) => {
  const declared = state.collections.get(c.collection);
  if (!declared) return E.left(noCollection(c.collection));
  const badId = checkId(c.id);
  if (badId) return E.left(badId);
  if (!isPlainObject(c.value)) return E.left(recordsRefusal('invalid', 'value is not a JSON object', 'put a plain object such as { "status": "waiting" }'));
  const value = c.value;
  const bytes = valueBytes(value);
  if (bytes > RECORD_LIMITS.valueBytes)
    return E.left(recordsRefusal('too_large', `value is ${fmt(bytes)} bytes as JSON`, `keep it to ${fmt(RECORD_LIMITS.valueBytes)} bytes or less`));
  for (const field of [...declared.people, ...declared.fields]) {
    const v: Json | undefined = Object.hasOwn(value, field) ? value[field] : undefined;
    if (typeof v === 'string' && chars(v) > RECORD_LIMITS.fieldValueMaxChars)
      return E.left(
        recordsRefusal(
          'invalid',
          `${c.collection}.${field} is ${fmt(chars(v))} characters`,
          `keep a declared field to ${RECORD_LIMITS.fieldValueMaxChars} characters, or leave it undeclared`,
        ),
      );
  }
  const key = recordKey(c.collection, c.id);
  const existing = state.records.get(key);
  if (!existing && state.records.size >= RECORD_LIMITS.recordsPerAgent)
    return E.left(
      recordsRefusal('full', `the agent holds ${fmt(state.records.size)} records`, 'delete records it no longer needs, or keep that data in your own database'),
    );
  if (c.started_ms !== null) {
    const started = c.started_ms;
    const people = new Set(declared.people);
    if (c.index.some((e) => people.has(e.field) && (state.forgotten.get(e.digest) ?? -Infinity) > started)) return E.left(forgottenWhileRunning());
  }
  const created_ms = createdAtFor(state, c.collection, c.id, c.now);
  return E.right<Refusal, CollectionEvent[]>([
    {
      type: 'AgentRecordPut',
      data: {
        tenant: c.tenant,
        agent: c.agent,
        collection: c.collection,
        id: c.id,
        seq: c.seq,
        value: c.sealed,
        bytes,
        index: [...c.index],
        created_ms,
        updated_ms: Math.max(c.now, created_ms, existing?.updated_ms ?? 0),
      },
    },
  ]);
};

const decideDelete = (c: Extract<CollectionCommand, { kind: 'delete' }>, state: AgentState) => {
  if (!state.collections.has(c.collection)) return E.left(noCollection(c.collection));
  const badId = checkId(c.id);
  if (badId) return E.left(badId);
  if (!state.records.has(recordKey(c.collection, c.id))) return E.right([]);
  return E.right<Refusal, CollectionEvent[]>([
    { type: 'AgentRecordDeleted', data: { tenant: c.tenant, agent: c.agent, collection: c.collection, id: c.id, deleted_ms: c.now } },
  ]);
};

const decideForget = (c: Extract<CollectionCommand, { kind: 'forget' }>, state: AgentState) => {
  if (c.names.length === 0) return E.left(recordsRefusal('invalid', 'no person given', 'name the person to forget'));
  const names = new Set(c.names);
  const records = [...state.records.values()].filter((r) => namesPerson(state, r, names)).map((r) => ({ collection: r.collection, id: r.id }));
  // Appended even when nothing matches: the time is what refuses a put from a tool still running.
  return E.right<Refusal, CollectionEvent[]>([
    { type: 'AgentPersonForgotten', data: { tenant: c.tenant, agent: c.agent, names: [...names], records, forgotten_ms: c.now } },
  ]);
};

export const agentDecider: Decider<CollectionCommand, CollectionEvent, AgentState> = {
  initialState: initialAgentState,
  evolve: evolveAgent,
  decide: (command, state) => {
    switch (command.kind) {
      case 'declare':
        return decideDeclare(command, state);
      case 'put':
        return decidePut(command, state);
      case 'delete':
        return decideDelete(command, state);
      case 'forget':
        return decideForget(command, state);
    }
  },
};
