import * as t from 'io-ts';
import { defineEvent, nullable, type EventOf } from '../events/schema.ts';

/** A body or digest sealed with AES-256-GCM under data key `k` (see adapters/keys). */
export const SealedCodec = t.type({ k: t.string, n: t.string, c: t.string });
export type Sealed = t.TypeOf<typeof SealedCodec>;

export const RecordVersionWritten = defineEvent(
  'RecordVersionWritten',
  1,
  t.type({
    tenant: t.string,
    plugin: t.string,
    scope: t.string,
    key: t.string,
    version: t.number,
    body: SealedCodec,
    body_bytes: t.number,
    kind: t.string,
    state: t.string,
    supersedes: nullable(t.string),
    ends_at: t.number,
    subject_kind: t.keyof({ work: null, person: null }),
    closed: t.boolean,
    purpose: t.string,
    labels: t.array(t.string),
    created_ms: t.number,
    writer: t.type({ job: t.string, run: t.number, call: t.string, step: t.number, agent: t.string, plugin: t.string, tainted: t.boolean }),
    /** The data subject whose key seals this version, if the writer's job had one. */
    data_subject: nullable(t.string),
    request_key: t.string,
    /** The keyed dedupe digest, sealed like the body. The text itself is never kept. */
    dedupe: nullable(SealedCodec),
  }),
);

export const RecordsRead = defineEvent(
  'RecordsRead',
  1,
  t.type({
    tenant: t.string,
    job: t.string,
    run: t.number,
    call: t.string,
    step: t.number,
    op: t.keyof({ get: null, history: null, list: null }),
    startup: t.boolean,
    plugin: t.string,
    purpose: t.string,
    records: t.array(t.type({ scope: t.string, key: t.string, version: t.number })),
    withheld: t.number,
    read_ms: t.number,
  }),
);

export const LabelsJoined = defineEvent(
  'LabelsJoined',
  1,
  t.type({ tenant: t.string, job: t.string, run: t.number, call: t.string, labels: t.array(t.string), joined_ms: t.number }),
);

export const recordEventSchemas = [RecordVersionWritten, RecordsRead, LabelsJoined] as const;

export type RecordVersionWrittenData = t.TypeOf<typeof RecordVersionWritten.codec>;
export type RecordEvent = EventOf<typeof RecordVersionWritten> | EventOf<typeof RecordsRead> | EventOf<typeof LabelsJoined>;
