import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as E from 'fp-ts/lib/Either.js';
import { z } from 'zod';
import type { AgentKeyCommands } from '../../../commands/collections-keys.ts';
import { exportText, type CollectionsService } from '../../../commands/collections.ts';
import { fitAsked, type FitAsk } from '../../../domain/collections/fit.ts';
import { VIEWS, type View } from '../../../clients/typescript/src/fit/types.ts';
import { AGENT_KEY_AGENT } from '../../../domain/collections/agent-keys.ts';
import { COLLECTION_NAME, FIELD_NAME, RECORD_LIMITS, RESERVED_FIELD_NAMES } from '../../../domain/collections/limits.ts';
import { JSON_VALUE_REF } from '../json-value.ts';
import { refusal, type Refusal } from '../../../domain/shared/refusal.ts';
import { JsonBudget, TextBudget } from '../fit-params.ts';
import { AGENT_KEY, agentOf } from '../route-auth.ts';
import { TenantParams } from '../schemas.ts';
import { statusOf } from '../status.ts';
import { AgentAnswers, IssuedKey, ok, okAs, refusals } from '../responses.ts';

export interface AgentDeps {
  readonly collections: CollectionsService;
  readonly keys: AgentKeyCommands;
  /** Waits until the read models hold a position (an admin answer reads its own writes). */
  readonly settle: (position: number) => Promise<boolean>;
}

const tags = ['agent records'];
const security = [{ agent: [] }];
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
// The records service checks names, ids and values (its refusals say what to change); the
// document states the same rules (`meta`): the limits of one declaration, one id, one value.
const fieldNames = z
  .array(z.string())
  .max(64)
  .meta({
    maxItems: RECORD_LIMITS.fieldsPerCollection,
    uniqueItems: true,
    items: { type: 'string', pattern: FIELD_NAME.source, not: { enum: [...RESERVED_FIELD_NAMES] } },
  });
const CollectionsBody = z.strictObject({
  collections: z
    .record(z.string().meta({ pattern: COLLECTION_NAME.source }), z.strictObject({ people: fieldNames.optional(), fields: fieldNames.optional() }))
    .meta({ maxProperties: RECORD_LIMITS.collectionsPerAgent }),
});
const RecordId = z.string().meta({ minLength: 1, maxLength: RECORD_LIMITS.idMaxChars, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$' });
const RecordParams = z.strictObject({ collection: z.string(), id: RecordId });
const CollectionParams = z.strictObject({ collection: z.string() });
const PutBody = z.strictObject({
  value: z.unknown().meta({ type: 'object', additionalProperties: JSON_VALUE_REF, description: 'a JSON object, at most 64 KiB' }),
  started_ms: z.number().int().nonnegative().optional(),
});
// SPEC §13: any of view, budget, query asks for a fitted answer.
const FitFields = {
  view: z.enum(VIEWS as [View, ...View[]]).optional(),
  budget: JsonBudget.optional(),
  query: z.string().max(1_000).optional(),
};
const QueryBody = z.strictObject({
  where: z.record(z.string(), scalar).optional(),
  // Checked by the records service (its refusal names the range); documented here.
  limit: z.number().meta({ type: 'integer', minimum: 1, maximum: RECORD_LIMITS.queryMax }).optional(),
  // The previous page's last entry, passed whole (SPEC §12): only createdAt and id are read, the rest is ignored.
  after: z.object({ createdAt: z.number(), id: z.string() }).optional(),
  ...FitFields,
});
/** `after` is the `next` of a fitted export's last line: `<createdAt>:<id>`. */
const ExportQuery = z.strictObject({
  ...FitFields,
  budget: TextBudget.optional(),
  after: z
    .string()
    .regex(/^\d{1,16}:.*$/s, "after is <createdAt>:<id>, as a fitted export's next gives it")
    .optional(),
});
const askOf = (q: { view?: View | undefined; budget?: number | undefined; query?: string | undefined }): FitAsk => ({
  ...(q.view === undefined ? {} : { view: q.view }),
  ...(q.budget === undefined ? {} : { budget: q.budget }),
  ...(q.query === undefined ? {} : { query: q.query }),
});
const afterOf = (after: string | undefined) => {
  if (after === undefined) return null;
  const at = after.indexOf(':');
  return { createdAt: Number(after.slice(0, at)), id: after.slice(at + 1) };
};
const ForgetBody = z.strictObject({ person: z.string().min(1).max(1_000), also: z.array(z.string().min(1).max(1_000)).max(100).optional() });
const AgentKeyBody = z.strictObject({ agent: z.string().regex(AGENT_KEY_AGENT, 'an agent is 1–128 of [A-Za-z0-9._/-], starting with a letter or digit') });

const refuse = (reply: FastifyReply, r: Refusal) => reply.code(statusOf(r)).send(r);
const send = <T>(reply: FastifyReply, result: E.Either<Refusal, T>, body: (v: T) => unknown) =>
  E.isLeft(result) ? refuse(reply, result.left) : reply.send(body(result.right));

/**
 * The admin's calls: issues an agent key (shown once), exports an agent's records. Registered
 * inside the admin scope. `known`: whether a tenant exists (an export of an unknown one is a 404).
 */
export const agentKeyRoutes = (app: FastifyInstance, deps: AgentDeps, known: (tenant: string) => Promise<boolean>) => {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/v1/tenants/:t/agent-keys',
      {
        schema: {
          params: TenantParams,
          body: AgentKeyBody,
          security: [{ admin: [] }],
          tags: ['admin'],
          summary: 'issues an agent key, shown once',
          response: { ...ok(IssuedKey, 'the key (shown once) and its id', 201), ...refusals(404, 409) },
        },
      },
      async (req, reply) => {
        const issued = await deps.keys.issue(req.params.t, req.body.agent);
        if (E.isLeft(issued)) return refuse(reply, issued.left);
        if (issued.right.position !== null) await deps.settle(issued.right.position);
        return reply.code(201).send({ key: issued.right.key, id: issued.right.id });
      },
    )
    .get(
      '/v1/tenants/:t/agents/:agent/records/export',
      {
        schema: {
          params: z.strictObject({ t: TenantParams.shape.t, agent: z.string().regex(AGENT_KEY_AGENT) }),
          querystring: ExportQuery,
          security: [{ admin: [] }],
          tags: ['admin'],
          summary: "an agent's records as JSON Lines, oldest first (custodian records export)",
          response: {
            ...okAs('application/x-ndjson', 'JSON Lines {collection, id, value, createdAt, updatedAt}; a fitted export ends in a fit line'),
            ...refusals(404),
          },
        },
      },
      async (req, reply) => {
        if (!(await known(req.params.t))) return refuse(reply, refusal('not_found', { what: 'tenant', reason: `no tenant named ${req.params.t}` }));
        return answerExport(reply, deps.collections, req.params.t, req.params.agent, req.query);
      },
    );
};

/** An export as JSON Lines, fitted when asked (SPEC §13: the fit note on a last line of its own). */
const answerExport = async (reply: FastifyReply, collections: CollectionsService, tenant: string, agent: string, q: z.infer<typeof ExportQuery>) => {
  const ask = askOf(q);
  const after = afterOf(q.after);
  if (!fitAsked(ask) && after === null) {
    const records = await collections.exportStream(tenant, agent);
    return reply.type('application/x-ndjson').send(
      Readable.from(
        (async function* () {
          for await (const r of records) yield exportText([r]);
        })(),
      ),
    );
  }
  const fitted = await collections.exportFitted(tenant, agent, after, ask);
  const last = { fit: fitted.fit, ...(fitted.more ? { more: true, next: `${fitted.next!.createdAt}:${fitted.next!.id}` } : {}) };
  return reply.type('application/x-ndjson').send(`${exportText(fitted.entries)}${JSON.stringify(last)}\n`);
};

/**
 * The agent records API (SPEC §12), for an agent runtime holding an agent key. The edge
 * resolved the key before any body was read (`authorise`); each handler reads who it is for
 * from there and nowhere else.
 */
export const agentRoutes = (app: FastifyInstance, deps: AgentDeps) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const who = (req: Parameters<typeof agentOf>[0]) => agentOf(req);
  const denied = (reply: FastifyReply) => refuse(reply, refusal('unauthorized', { message: 'records: no agent key: send Authorization: Bearer <agent key>' }));
  // A value of 64 KiB plus its wrapping (escapes can double a string's JSON).
  const bodyLimit = 4 * RECORD_LIMITS.valueBytes;

  r.put(
    '/v1/agent/collections',
    {
      config: AGENT_KEY,
      bodyLimit,
      schema: {
        body: CollectionsBody,
        tags,
        security,
        summary: "declares the agent's collections",
        response: { ...ok(AgentAnswers.collections, 'the collections as declared'), ...refusals(409) },
      },
    },
    async (req, reply) => {
      const a = who(req);
      if (!a) return denied(reply);
      const declaration = Object.entries(req.body.collections).map(([name, c]) => ({ name, people: c.people ?? [], fields: c.fields ?? [] }));
      return send(reply, await deps.collections.declare(a.tenant, a.agent, declaration), (v) => v);
    },
  );

  r.get(
    '/v1/agent/collections',
    { config: AGENT_KEY, schema: { tags, security, summary: "the agent's collections", response: ok(AgentAnswers.collections, 'the collections') } },
    async (req, reply) => {
      const a = who(req);
      if (!a) return denied(reply);
      return reply.send({ collections: await deps.collections.collections(a.tenant, a.agent) });
    },
  );

  r.put(
    '/v1/agent/records/:collection/:id',
    {
      config: AGENT_KEY,
      bodyLimit,
      schema: {
        params: RecordParams,
        body: PutBody,
        tags,
        security,
        summary: 'puts a record: the whole value replaces the last',
        response: { ...ok(AgentAnswers.put, 'stored'), ...refusals(404, 409) },
      },
    },
    async (req, reply) => {
      const a = who(req);
      if (!a) return denied(reply);
      const { collection, id } = req.params;
      return send(reply, await deps.collections.put(a.tenant, a.agent, collection, id, req.body.value, req.body.started_ms ?? null), (v) => v);
    },
  );

  r.get(
    '/v1/agent/records/:collection/:id',
    {
      config: AGENT_KEY,
      schema: { params: RecordParams, tags, security, summary: 'reads a record', response: { ...ok(AgentAnswers.get, 'the record'), ...refusals(404) } },
    },
    async (req, reply) => {
      const a = who(req);
      if (!a) return denied(reply);
      const got = await deps.collections.get(a.tenant, a.agent, req.params.collection, req.params.id);
      if (E.isRight(got) && got.right === null)
        return refuse(
          reply,
          refusal('not_found', {
            what: 'record',
            message: `records: no record ${JSON.stringify(req.params.id)} in ${req.params.collection}: put it first, or check the id`,
          }),
        );
      return send(reply, got, (e) => ({ value: e!.value, createdAt: e!.createdAt, updatedAt: e!.updatedAt }));
    },
  );

  r.post(
    '/v1/agent/records/:collection/query',
    {
      config: AGENT_KEY,
      schema: {
        params: CollectionParams,
        body: QueryBody,
        tags,
        security,
        summary: 'records whose declared fields equal where, oldest first',
        response: { ...ok(AgentAnswers.query, 'a page of entries'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      const a = who(req);
      if (!a) return denied(reply);
      const { where, limit, after } = req.body;
      const page = { ...(limit === undefined ? {} : { limit }), ...(after ? { after } : {}) };
      const ask = askOf(req.body);
      if (fitAsked(ask)) return send(reply, await deps.collections.queryFitted(a.tenant, a.agent, req.params.collection, where ?? {}, page, ask), (v) => v);
      return send(reply, await deps.collections.query(a.tenant, a.agent, req.params.collection, where ?? {}, page), (entries) => ({ entries }));
    },
  );

  r.delete(
    '/v1/agent/records/:collection/:id',
    {
      config: AGENT_KEY,
      schema: {
        params: RecordParams,
        tags,
        security,
        summary: 'deletes a record',
        response: { ...ok(AgentAnswers.deleted, 'whether there was one'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      const a = who(req);
      if (!a) return denied(reply);
      return send(reply, await deps.collections.delete(a.tenant, a.agent, req.params.collection, req.params.id), (v) => v);
    },
  );

  r.post(
    '/v1/agent/forget',
    {
      config: AGENT_KEY,
      schema: {
        body: ForgetBody,
        tags,
        security,
        summary: 'deletes every record naming a person in a people field',
        response: ok(AgentAnswers.forgotten, 'how many were deleted'),
      },
    },
    async (req, reply) => {
      const a = who(req);
      if (!a) return denied(reply);
      return send(reply, await deps.collections.forget(a.tenant, a.agent, req.body.person, req.body.also ?? []), (v) => v);
    },
  );

  r.get(
    '/v1/agent/export',
    {
      config: AGENT_KEY,
      schema: {
        querystring: ExportQuery,
        tags,
        security,
        summary: "the agent's records as JSON Lines, oldest first",
        response: okAs('application/x-ndjson', 'JSON Lines {collection, id, value, createdAt, updatedAt}'),
      },
    },
    async (req, reply) => {
      const a = who(req);
      if (!a) return denied(reply);
      return answerExport(reply, deps.collections, a.tenant, a.agent, req.query);
    },
  );
};
