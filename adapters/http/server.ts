import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { openapiTransforms } from './openapi.ts';
import { declaresSuccess, withRefusalResponses } from './responses.ts';
import { docsRoutes } from './docs.ts';
import { homeRoutes } from './routes/home.ts';
import type { Logger } from 'pino';
import { adminScope, authorise, closeIfBodyPending, type AuthKind } from './route-auth.ts';
import { admissionOf } from './admitted.ts';
import { MAX_ADMIN_BODY_BYTES } from './body-limits.ts';
import { hygieneRefusal } from './hygiene.ts';
import { parseJsonBody, refusalError } from './json-body.ts';
import { checkRequestTarget } from './request-target.ts';
import { answerClientError } from './client-errors.ts';
import type { HttpDeps } from './deps.ts';
import { answerFrameworkError, refusalOfError } from './errors.ts';
import { messageOnRefusal } from './refusal-hook.ts';
import { jobRoutes } from './routes/jobs.ts';
import { startupRoutes } from './routes/startup.ts';
import { bodyGate, LARGE_BODIES_IN_FLIGHT } from './body-gate.ts';
import { filesRoutes } from './routes/files.ts';
import { resultsRoutes } from './routes/results.ts';
import { complianceRoutes } from './routes/compliance.ts';
import { auditCosignRoutes, auditRoutes } from './routes/audit.ts';
import { auditLogRoutes } from './routes/audit-log.ts';
import { auditorKeyRoutes } from './routes/auditor-keys.ts';
import { consoleAdminRoutes, consoleRoutes } from './routes/console.ts';
import { consoleAuditorRoutes, eventBrowserRoutes } from './routes/console-reads.ts';
import { recordsRoutes } from './routes/records.ts';
import { agentKeyRoutes, agentRoutes } from './routes/agent.ts';
import { clockRoutes, systemRoutes } from './routes/system.ts';
import { tenantRoutes } from './routes/tenants.ts';
import { createMetrics, type CustodianMetrics } from '../metrics/registry.ts';
import { instrumentHttp } from '../metrics/http-hooks.ts';
import { registerLogGauges } from '../metrics/log-gauges.ts';
import { auditTreeSizeAll } from '../../queries/audit-tree-size.ts';
import { auditHashesPublic, tenantExists } from '../../queries/tenants.ts';

/** One registered route and the credential it declared (undefined: refused to everyone). */
export interface RouteInfo {
  readonly method: string;
  readonly url: string;
  readonly auth: AuthKind | undefined;
}

export type CustodianServer = FastifyInstance & { readonly routeTable: readonly RouteInfo[] };

export const buildServer = async (deps: HttpDeps, logger?: Logger, metrics: CustodianMetrics = createMetrics()): Promise<CustodianServer> => {
  const app = Fastify({
    loggerInstance: logger,
    // An agent record's id is up to 128 characters, percent-encoded in the path (up to 12 bytes each).
    routerOptions: { maxParamLength: 1_600 },
    bodyLimit: MAX_ADMIN_BODY_BYTES,
    // A request without Host is refused as JSON by checkRequestTarget, not by node's empty 400.
    http: { requireHostHeader: false },
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    ...(logger ? {} : { logger: false }),
  }) as unknown as FastifyInstance;
  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the answers (/openapi.json); what a handler answered is written as it is.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // Every route, as registered, with the credential it declared: the hostile tests walk it.
  // Read when asked: the admin scope's own onRoute hook (which runs after this one) sets it.
  const routeTable: RouteInfo[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      routeTable.push({
        method,
        url: route.url,
        get auth() {
          return route.config?.auth;
        },
      });
  });

  // Every documented route declares its success answer; each gets the refusal body beside it.
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ?? {}) as { hide?: boolean; body?: unknown; response?: Record<string, unknown> };
    if (schema.hide) return;
    if (!declaresSuccess(schema.response)) throw new Error(`${String(route.method)} ${route.url}: declare its success answer (schema.response)`);
    const kind = { body: schema.body !== undefined, public: route.config?.auth === 'public', tenant: /\/:t(\/|$)/.test(route.url) };
    route.schema = { ...schema, response: withRefusalResponses(schema.response!, kind) };
  });

  // JSON only (the import route adds JSON Lines for itself): any other media type is a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);

  instrumentHttp(app, metrics);
  registerLogGauges(metrics, {
    store: deps.store,
    checkpoints: () => deps.runner.checkpoints(),
    relay: deps.relay ?? null,
    auditTreeSize: () => auditTreeSizeAll(deps.db),
  });

  // Order matters: the target's form first, then the matched route's credential, both
  // before any body is read.
  app.addHook('onRequest', checkRequestTarget);
  app.addHook(
    'onRequest',
    authorise(deps.adminKey, deps.agent?.keys.resolve, deps.auditors.resolve, (t) => auditHashesPublic(deps.db, t)),
  );
  // Query strings and path parameters go through the same hygiene as bodies.
  app.addHook('preValidation', async (req) => {
    const bad = hygieneRefusal(req.params, 'params') ?? hygieneRefusal(req.query, 'query');
    if (bad) throw refusalError(bad);
  });

  // Every refusal leaves with a message, whichever route or hook answered it.
  app.addHook('onSend', messageOnRefusal);

  app.setErrorHandler((error, req, reply) => {
    const schema = req.routeOptions.schema as Record<string, unknown> | undefined;
    const data = { body: req.body, querystring: req.query, params: req.params, headers: req.headers };
    const { status, body } = refusalOfError(error as FastifyError, { schema: schema ?? {}, data });
    if (status >= 500) req.log.error({ err: error }, 'request failed');
    // The database does not answer (the only 503 here): a client may retry in a few seconds.
    if (status === 503) reply.header('retry-after', '5');
    // Refused before its body was read (too large, or a type we do not parse): do not read it.
    if (status === 413 || status === 415) closeIfBodyPending(req, reply);
    // The records API names the job's purpose in every answer, its 413 and 415 included.
    if (req.routeOptions.config?.auth === 'ticket') return reply.code(status).send({ ...body, job_purpose: admissionOf(req)?.purpose ?? '' });
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'not_found', what: 'route', method: req.method, path: req.url.split('?')[0] }));

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Custodian', version: '0.1.0', description: 'Versioned plugin records and the authority agent jobs run under.' },
      components: {
        securitySchemes: {
          admin: { type: 'http', scheme: 'bearer', description: 'The admin key' },
          auditor: { type: 'http', scheme: 'bearer', description: "An auditor key: reads its tenant's audit stream, checkpoints, proofs and receipts" },
          ticket: { type: 'http', scheme: 'bearer', description: 'A call ticket: _meta["oz0/records"].ticket of a live call' },
          agent: { type: 'http', scheme: 'bearer', description: 'An agent key: the agent records API of one agent' },
        },
      },
    },
    ...openapiTransforms,
  });

  // Admin routes live in the admin scope, whose own hook checks the admin key; the rest
  // declare their credential (PUBLIC, TICKET) and anything that declares nothing is refused.
  await app.register(
    adminScope(deps.adminKey, (admin) => {
      tenantRoutes(admin, deps);
      jobRoutes(admin, deps);
      startupRoutes(admin, deps);
      complianceRoutes(admin, deps.compliance);
      auditorKeyRoutes(admin, { auditors: deps.auditors, settle: (p) => deps.runner.waitFor(p) });
      consoleAdminRoutes(admin, { store: deps.store, db: deps.db, runner: deps.runner, now: Date.now });
      eventBrowserRoutes(admin, { store: deps.store, db: deps.db });
      clockRoutes(admin, deps);
      auditCosignRoutes(admin, { witnesses: deps.witnesses, db: deps.db });
      if (deps.agent) agentKeyRoutes(admin, deps.agent, (t) => tenantExists(deps.db, t));
    }),
  );
  // Read-only, tenant-bound: the admin key or an auditor key of the tenant (AUDITOR).
  auditRoutes(app, { audit: deps.audit, db: deps.db, witnesses: deps.witnesses });
  auditLogRoutes(app, { db: deps.db, witnesses: deps.witnesses });
  consoleRoutes(app);
  consoleAuditorRoutes(app, { store: deps.store, db: deps.db, adminKey: deps.adminKey });
  recordsRoutes(app, deps.records);
  const largeBodies = bodyGate(LARGE_BODIES_IN_FLIGHT);
  filesRoutes(app, { service: deps.records.service, files: deps.files, runner: deps.runner, largeBodies });
  resultsRoutes(app, { service: deps.records.service, results: deps.results, runner: deps.runner, largeBodies });
  if (deps.agent) agentRoutes(app, deps.agent);
  systemRoutes(app, deps, metrics.registry);
  homeRoutes(app);
  await docsRoutes(app);
  await app.ready();
  return Object.assign(app, { routeTable }) as CustodianServer;
};
