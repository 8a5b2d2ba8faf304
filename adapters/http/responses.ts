import type { FastifySchemaCompiler } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { REFUSAL_CODES } from '../../domain/shared/refusal.ts';

/**
 * The answers each route documents in /openapi.json. The refusal body is added to every
 * route by the server (`withRefusalResponses`); each route declares its own success.
 * Responses are described here, not checked on the way out: the serializer writes what the
 * handler answered (a response schema can never turn a good answer into a 500).
 */

export const RefusalBody = z
  .looseObject({
    error: z.enum(REFUSAL_CODES).meta({ description: 'the refusal code' }),
    message: z.string().meta({ description: 'one sentence: what is wrong and what to change' }),
    field: z.string().optional().meta({ description: 'the field at fault, where one is (list.limit, querystring.since)' }),
    reason: z.string().optional().meta({ description: 'the rule the field broke' }),
    allowed: z.array(z.string()).optional().meta({ description: 'for an unknown field: the fields allowed there' }),
    job_purpose: z.string().optional().meta({ description: "the records, files and results routes: the job's purpose ('' for no job)" }),
  })
  .meta({
    id: 'Refusal',
    description: 'Every refusal, on every route. Other fields a code carries (current, limit, cap, key, version, …) are named with that code.',
  });

/** A JSON success answer. */
// Typed loosely on purpose: a documented answer does not type (or check) what the handler sends.
export const ok = (schema: z.ZodType, description: string, status = 200): Record<string, unknown> => ({ [status]: schema.meta({ description }) });

/** A success answer that is not JSON (JSON Lines, raw bytes, PEM, Prometheus text). */
export const okAs = (type: string, description: string, schema: z.ZodType = z.string(), status = 200): Record<string, unknown> => ({
  [status]: { description, content: { [type]: { schema } } },
});

/** A success answer in one of several media types (the request says which: Accept, or a query field). */
export const okIn = (content: Record<string, z.ZodType>, description: string, status = 200): Record<string, unknown> => ({
  [status]: { description, content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])) },
});

/**
 * For a route whose body its handler checks itself (after the ticket gate, or raw bytes):
 * the body schema documents it, params and query are still validated here.
 */
export const bodyCheckedByHandler = <S>(route: FastifyRouteSchemaDef<S>) =>
  route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : (validatorCompiler as unknown as FastifySchemaCompiler<S>)(route);

/** What each refusal status means; the body (`Refusal`) names the code and what to change. */
const REFUSAL_STATUSES = {
  400: 'invalid (a field, the path or the query string; the body says which and what to send), closed or ends_at',
  401: 'no credential, or one not accepted here (unauthorized, ticket)',
  403: 'the credential may not do this: revoked, scope, purpose, person_off, person_scope, job_not_running, widening_refused, envelope_invalid, label_wall or withheld',
  404: 'not_found: the tenant, job, call, hold, record, file or stream named does not exist',
  409: 'the current state refuses it: already_exists, stale, duplicate, full, held, not_empty, forgotten, files_held or tampered',
  410: 'removed: the tenant was removed and its keys shredded; its id is not used again',
  413: 'too_large or result_too_large: the body is larger than this route takes',
  415: 'unsupported_media_type: send the media type this route takes',
  429: 'requests: the call has made all the requests it may',
  503: 'unavailable: the database does not answer',
} as const;
export type RefusalStatus = keyof typeof REFUSAL_STATUSES;

/** The refusals a route answers beyond those every route of its kind does (see `withRefusalResponses`). */
export const refusals = (...statuses: RefusalStatus[]): Record<string, unknown> =>
  Object.fromEntries(statuses.map((s) => [s, { description: REFUSAL_STATUSES[s], content: { 'application/json': { schema: RefusalBody } } }]));

/**
 * The refusals a route may answer, beside its own success and the refusals it declared: 400
 * on every route (the path and query string are checked everywhere); 401 and 503 on every
 * route that takes a credential and reads the database; 410 on every route that names a tenant in
 * its path (a removed tenant's id answers \`removed\`); 413 and 415 on every route that reads a body.
 */
export const withRefusalResponses = (
  response: Record<string, unknown>,
  route: { readonly body: boolean; readonly public: boolean; readonly tenant: boolean },
) => ({
  ...refusals(400, ...(route.public ? [] : ([401, 503] as const)), ...(route.tenant ? ([410] as const) : []), ...(route.body ? ([413, 415] as const) : [])),
  ...response,
});

/** Whether a route declares a success answer (2xx) of its own. */
export const declaresSuccess = (response: unknown) =>
  typeof response === 'object' && response !== null && Object.keys(response).some((k) => /^2(\d\d|XX)$/i.test(k));

const loose = z.looseObject;
const ms = z.number().meta({ description: 'milliseconds since 1970' });

export const Tenant = loose({ id: z.string(), authority_epoch: z.number(), settings: loose({}) });
export const Plugin = loose({ name: z.string(), install_gen: z.number(), functions: z.array(z.string()), agents: z.array(z.string()) });
export const Job = loose({ id: z.string(), status: z.string(), agent: z.string(), plugin: z.string(), purpose: z.string() });
const Meta = z.object({
  'oz0/records': z.object({ url: z.string(), ticket: z.string(), agent: z.string() }),
  'oz0/idempotency_key': z.string(),
});
const Receipt = loose({}).meta({ description: 'a signed receipt' });
export const RevocationAnswer = loose({ epoch: z.number(), stopped: z.array(z.unknown()), indeterminate: z.array(z.unknown()), receipt: Receipt });

export const RecordView = loose({
  scope: z.string(),
  key: z.string(),
  version: z.number(),
  body: z.record(z.string(), z.unknown()),
  kind: z.string(),
  state: z.string(),
  supersedes: z.string().nullable(),
  ends_at: ms,
  subject_kind: z.enum(['work', 'person']),
  purpose: z.string(),
  closed: z.boolean(),
  labels: z.array(z.string()),
  created_ms: ms,
  writable: z.boolean(),
});

const purpose = { job_purpose: z.string() };
export const RecordsAnswer = z.union([
  z.object({ version: z.number(), scope: z.string(), key: z.string(), ...purpose }).meta({ description: 'put' }),
  loose({ record: RecordView.optional(), ...purpose }).meta({ description: 'get: {} when there is no such record' }),
  loose({ records: z.array(RecordView), ...purpose }).meta({ description: 'history, newest first' }),
  loose({ records: z.array(RecordView), withheld: z.number(), next: z.string().optional(), more: z.boolean(), ...purpose }).meta({ description: 'list' }),
]);

const Entry = z.object({ id: z.string(), value: z.unknown(), createdAt: ms, updatedAt: ms });
export const AgentAnswers = {
  collections: loose({ collections: z.array(z.string()).meta({ description: 'the names of the collections declared' }) }),
  put: loose({ createdAt: ms, updatedAt: ms }),
  get: z.object({ value: z.unknown(), createdAt: ms, updatedAt: ms }),
  query: loose({ entries: z.array(Entry) }).meta({ description: 'entries oldest first; a fitted answer adds fit, more and next' }),
  deleted: z.object({ deleted: z.boolean() }),
  forgotten: z.object({ deleted: z.number() }),
};

export const IssuedKey = z.object({ key: z.string().meta({ description: 'shown once' }), id: z.string() });

export const Answers = {
  tenant: z.object({
    tenant: Tenant,
    database: z.string().optional().meta({ description: 'with several databases (CUSTODIAN_DATABASES): the one that holds the tenant' }),
  }),
  tenantMoved: z.object({
    tenant: z.string(),
    from: z.string().meta({ description: 'the database the tenant was on' }),
    to: z.string().meta({ description: 'the database it is on now' }),
    moved: z.boolean().meta({ description: 'false when it was already there (a pause or an old copy an interrupted move left was cleared)' }),
    events: z.number().optional().meta({ description: 'the events copied' }),
    audit: z.object({ size: z.number(), root: z.string() }).optional().meta({ description: "the tenant's audit tree at the move, the same on both sides" }),
    paused_ms: z.number().optional().meta({ description: "how long the tenant's writes paused" }),
    reason: z.string().optional(),
  }),
  tenantPatched: z.object({ tenant: Tenant, revocation: RevocationAnswer.optional() }),
  plugin: z.object({ plugin: Plugin, install_gen: z.number() }),
  revocation: RevocationAnswer,
  killLifted: z.object({ agent: z.string(), lifted: z.literal(true) }),
  job: z.object({ job: Job }),
  jobStarted: z.object({ job: Job, envelope: loose({}) }),
  call: z.object({ call: z.object({ id: z.string(), step: z.number(), function: z.string(), startup: z.boolean() }), _meta: Meta }),
  callEnded: z.object({ call: loose({}) }),
  startup: z.object({ plugins: z.array(z.object({ plugin: z.string(), function: z.string(), call: z.string(), _meta: Meta })) }),
  startupText: loose({ text: z.string(), kept: z.array(loose({})), left_out: z.array(loose({})), tokens: z.number() }),
  hold: z.object({ hold: loose({ id: z.string() }) }),
  holdReleased: loose({ released: z.unknown(), resumed: z.unknown() }),
  erasure: loose({ erased: z.unknown(), deferred: z.unknown(), receipt: Receipt }),
  tenantRemoved: z.object({
    tenant: z.string(),
    removed: z.literal(true),
    removed_ms: ms,
    already_removed: z.boolean().meta({ description: 'true when an earlier removal removed it (this one wrote nothing)' }),
    stopped: z.array(z.string()).meta({ description: 'the running jobs the removal stopped' }),
    keys_shredded: z.number().meta({ description: 'how many keys this removal deleted' }),
  }),
  retention: loose({}).meta({ description: 'what the run removed, counted' }),
  renewals: z.object({ renewals: z.array(loose({})) }),
  imported: z.object({ records: z.number(), versions: z.number() }),
  checkpoint: loose({}).meta({ description: 'the signed tree head of the tenant audit log' }),
  proof: loose({}).meta({ description: 'an inclusion proof (leaf, size) or a consistency proof (from, to)' }),
  consoleTenants: z.object({ tenants: z.array(z.string()) }),
  consoleRecords: z.object({ records: z.array(loose({})) }),
  consoleCollections: z.object({ agents: z.array(loose({})) }),
  consoleProjections: z.object({
    head: z.number(),
    projections: z.array(z.object({ name: z.string(), position: z.number(), lag_events: z.number(), lag_ms: z.number() })),
  }),
  file: z.object({ ref: z.string(), size: z.number() }),
  offloaded: loose({}).meta({ description: 'the offloaded result: its file ref and a fitted preview' }),
  resultRead: loose({}).meta({ description: 'the part of the result asked for, fitted to the budget' }),
  unhealthy: loose({ status: z.literal('unavailable'), reason: z.string() }),
  health: loose({ status: z.string(), event_store: z.string(), checkpoints: z.record(z.string(), z.number()), relay: loose({}).nullable() }),
  clock: z.object({ now_ms: ms }),
};
