import * as t from 'io-ts';
import { defineEvent, type EventOf } from '../events/schema.ts';
import { SealedCodec } from '../records/events.ts';
import { AgentKeyIssued, type AgentKeyEvent } from './agent-keys.ts';

/**
 * A declared value's keyed digest (HMAC-SHA-256 under a tenant key) of its JSON text: equality
 * needs nothing more, and the log never holds the value itself.
 */
export const IndexEntryCodec = t.type({ field: t.string, digest: t.string });
export type IndexEntry = t.TypeOf<typeof IndexEntryCodec>;

export const CollectionDeclarationCodec = t.type({ name: t.string, people: t.array(t.string), fields: t.array(t.string) });
export type CollectionDeclaration = t.TypeOf<typeof CollectionDeclarationCodec>;

/**
 * A declaration that added something. `indexed` carries, for every record already kept, the
 * digests of the fields this declaration added, so the index holds them the moment it lands.
 */
export const AgentCollectionsDeclared = defineEvent(
  'AgentCollectionsDeclared',
  1,
  t.type({
    tenant: t.string,
    agent: t.string,
    collections: t.array(CollectionDeclarationCodec),
    indexed: t.array(t.type({ collection: t.string, id: t.string, index: t.array(IndexEntryCodec) })),
    declared_ms: t.number,
  }),
);

/** A whole value kept under (collection, id), sealed with its own data key (`seq` names the key's version). */
export const AgentRecordPut = defineEvent(
  'AgentRecordPut',
  1,
  t.type({
    tenant: t.string,
    agent: t.string,
    collection: t.string,
    id: t.string,
    seq: t.number,
    value: SealedCodec,
    bytes: t.number,
    index: t.array(IndexEntryCodec),
    created_ms: t.number,
    updated_ms: t.number,
  }),
);

export const AgentRecordDeleted = defineEvent(
  'AgentRecordDeleted',
  1,
  t.type({ tenant: t.string, agent: t.string, collection: t.string, id: t.string, deleted_ms: t.number }),
);

/**
 * A person forgotten: `names` are the digests of every name they go by (phone rule applied),
 * `records` the records deleted because a `people` field held one of them. Their data keys are
 * shredded by the handler after this lands.
 */
export const AgentPersonForgotten = defineEvent(
  'AgentPersonForgotten',
  1,
  t.type({
    tenant: t.string,
    agent: t.string,
    names: t.array(t.string),
    records: t.array(t.type({ collection: t.string, id: t.string })),
    forgotten_ms: t.number,
  }),
);

/** A read of an agent's records (SPEC §12 read audit): who read which ids, never the values. */
export const AgentRecordsRead = defineEvent(
  'AgentRecordsRead',
  1,
  t.type({
    tenant: t.string,
    agent: t.string,
    op: t.keyof({ get: null, query: null, export: null }),
    collection: t.union([t.string, t.null]),
    records: t.array(t.type({ collection: t.string, id: t.string })),
    read_ms: t.number,
  }),
);

/** Read audit facts go to a stream of their own, so reading never contends with the agent's writes. */
export const agentReadsStream = (tenant: string, agent: string) => `agentreads:${tenant}:${agent}`;

export const collectionEventSchemas = [
  AgentCollectionsDeclared,
  AgentRecordPut,
  AgentRecordDeleted,
  AgentPersonForgotten,
  AgentKeyIssued,
  AgentRecordsRead,
] as const;

export type AgentCollectionsDeclaredData = t.TypeOf<typeof AgentCollectionsDeclared.codec>;
export type AgentRecordPutData = t.TypeOf<typeof AgentRecordPut.codec>;
export type CollectionEvent =
  EventOf<typeof AgentCollectionsDeclared> | EventOf<typeof AgentRecordPut> | EventOf<typeof AgentRecordDeleted> | EventOf<typeof AgentPersonForgotten>;

/** Every event type this feature registers: the agent streams' and the agent keys'. */
export type CollectionsFeatureEvent = CollectionEvent | AgentKeyEvent | EventOf<typeof AgentRecordsRead>;

/** One stream per (tenant, agent): the consistency boundary of the 10,000-record limit. */
export const agentStream = (tenant: string, agent: string) => `agent:${tenant}:${agent}`;
