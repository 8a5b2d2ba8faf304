import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { agentRecordLists, tenantAgents } from '../../../commands/console-collections.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { invalid, refusal } from '../../../domain/shared/refusal.ts';
import { auditSize } from '../../../queries/audit.ts';
import { auditFacets, inclusionProofs } from '../../../queries/console-audit.ts';
import { listStreams, streamEvents } from '../../../queries/event-streams.ts';
import { tenantExists } from '../../../queries/tenants.ts';
import { adminKeyMatches } from '../auth.ts';
import { ok, refusals } from '../responses.ts';

/** What the console's read routes answer (documentation: the answers are sent as built). */
const ConsoleAnswers = {
  session: z.looseObject({ tenant: z.string(), role: z.enum(['admin', 'auditor']), pages: z.array(z.string()) }),
  facets: z.looseObject({}),
  proofs: z.looseObject({ proofs: z.array(z.unknown()) }),
  agentRecords: z.looseObject({ agents: z.array(z.looseObject({ agent: z.string(), collections: z.unknown() })) }),
  streams: z.looseObject({}),
  events: z.looseObject({ events: z.array(z.unknown()) }),
};
import { AUDITOR } from '../route-auth.ts';
import { plainDecimal, TenantParams } from '../schemas.ts';

/** The pages each key opens: an auditor key reads its tenant's audit, receipts and agent record ids, nothing an operator runs. */
const AUDITOR_PAGES = ['audit', 'revocations', 'compliance', 'receipt', 'collections'] as const;
const ADMIN_PAGES = ['tenants', 'records', ...AUDITOR_PAGES, 'projections', 'events'] as const;

const AgentRecordsQuery = z.strictObject({
  agent: z.string().min(1).max(200).optional(),
  limit: plainDecimal('limit, records per collection', 1, 500).optional(),
});

const ProofsQuery = z.strictObject({
  leaves: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})(,(0|[1-9][0-9]{0,15})){0,99}$/, 'leaves: up to 100 entry indices, decimal, separated by commas')
    .transform((s) => s.split(',').map(Number)),
  size: plainDecimal('size, a tree size', 1, Number.MAX_SAFE_INTEGER),
});

export interface ConsoleReadDeps {
  readonly store: EventStore;
  readonly db: ReadModelStore;
  readonly adminKey: string;
}

/**
 * What the console reads under the admin key or an auditor key of the tenant (SPEC §14):
 * which key it holds (sign-in checks it before showing anything), what the audit filters
 * pick from, and the agents' records as ids and times. Read-only; never a value.
 */
export const consoleAuditorRoutes = (app: FastifyInstance, deps: ConsoleReadDeps) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const security: Record<string, string[]>[] = [{ admin: [] }, { auditor: [] }];
  const tags = ['console'];
  const known = (t: string) => tenantExists(deps.db, t);

  r.get(
    '/v1/tenants/:t/console/session',
    {
      config: AUDITOR,
      schema: {
        params: TenantParams,
        security,
        tags,
        summary: 'which key this is and the console pages it opens',
        response: { ...ok(ConsoleAnswers.session, 'the role and its pages'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant', reason: `no tenant named ${req.params.t}` }));
      const admin = adminKeyMatches(req.headers.authorization, deps.adminKey);
      return { tenant: req.params.t, role: admin ? 'admin' : 'auditor', pages: admin ? ADMIN_PAGES : AUDITOR_PAGES };
    },
  );

  r.get(
    '/v1/tenants/:t/console/audit-facets',
    {
      config: AUDITOR,
      schema: {
        params: TenantParams,
        security,
        tags,
        summary: "the audit log's size, time span, kinds, jobs and records, for filters",
        response: { ...ok(ConsoleAnswers.facets, 'what the filters can pick'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
      return auditFacets(deps.db, req.params.t);
    },
  );

  r.get(
    '/v1/tenants/:t/console/audit-proofs',
    {
      config: AUDITOR,
      schema: {
        params: TenantParams,
        querystring: ProofsQuery,
        security,
        tags,
        summary: 'inclusion proofs of up to 100 entries in one tree: the page of the timeline shown',
        response: { ...ok(ConsoleAnswers.proofs, 'one inclusion proof per entry asked'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
      const size = await auditSize(deps.db, req.params.t);
      const { leaves, size: tree } = req.query;
      if (tree > size) return reply.code(400).send(invalid('size', `the log holds ${size} entries: ask a tree size of at most ${size}`));
      const beyond = leaves.find((l) => l >= tree);
      if (beyond !== undefined) return reply.code(400).send(invalid('leaves', `entry ${beyond} is not in a tree of ${tree}: ask indices below the tree size`));
      return { proofs: await inclusionProofs(deps.db, req.params.t, [...new Set(leaves)], tree) };
    },
  );

  r.get(
    '/v1/tenants/:t/console/agent-records',
    {
      config: AUDITOR,
      schema: {
        params: TenantParams,
        querystring: AgentRecordsQuery,
        security,
        tags,
        summary: "each agent's records by collection, newest first: ids and times, no values",
        response: { ...ok(ConsoleAnswers.agentRecords, 'ids and times by agent and collection'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
      const all = await tenantAgents(deps.store, req.params.t);
      const agents = req.query.agent === undefined ? all : all.filter((a) => a === req.query.agent);
      if (req.query.agent !== undefined && agents.length === 0)
        return reply.code(404).send(refusal('not_found', { what: 'agent', reason: `no agent key was issued for ${req.query.agent} in this tenant` }));
      const limit = req.query.limit ?? 100;
      return {
        agents: await Promise.all(agents.map(async (agent) => ({ agent, collections: await agentRecordLists(deps.store, req.params.t, agent, limit) }))),
      };
    },
  );
};

const StreamsQuery = z.strictObject({
  prefix: z.string().max(300).default(''),
  after: z.string().max(600).default(''),
  limit: plainDecimal('limit, streams per page', 1, 500).default(100),
});
const StreamParams = z.strictObject({ stream: z.string().min(1).max(600) });
const StreamEventsQuery = z.strictObject({
  from: plainDecimal('from, a revision', 0, Number.MAX_SAFE_INTEGER).default(0),
  limit: plainDecimal('limit, events per page', 1, 500).default(100),
});

/**
 * The operator's event-log browser (admin scope only: an auditor key is refused there):
 * streams by prefix and their events, data shown as stored with sealed values kept sealed.
 */
export const eventBrowserRoutes = (admin: FastifyInstance, deps: { store: EventStore; db: ReadModelStore }) => {
  const r = admin.withTypeProvider<ZodTypeProvider>();
  const security = [{ admin: [] }];
  const tags = ['console'];
  r.get(
    '/v1/events/streams',
    {
      schema: {
        querystring: StreamsQuery,
        security,
        tags,
        summary: 'event streams whose names start with a prefix, in name order',
        response: ok(ConsoleAnswers.streams, 'a page of streams'),
      },
    },
    async (req) => listStreams(deps.store, deps.db, req.query.prefix, req.query.after, req.query.limit),
  );
  r.get(
    '/v1/events/streams/:stream',
    {
      schema: {
        params: StreamParams,
        querystring: StreamEventsQuery,
        security,
        tags,
        summary: "a stream's events: type, version, position, time, metadata; sealed data stays sealed",
        response: { ...ok(ConsoleAnswers.events, 'a page of the stream'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      const answer = await streamEvents(deps.store, req.params.stream, req.query.from, req.query.limit);
      if (answer.events.length === 0 && req.query.from === 0)
        return reply.code(404).send(refusal('not_found', { what: 'stream', reason: `no stream named ${req.params.stream}` }));
      return answer;
    },
  );
};
