import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from 'pino';
import { adminKeyMatches } from './auth.ts';
import type { HttpDeps } from './deps.ts';
import { refusalOfError } from './errors.ts';
import { jobRoutes } from './routes/jobs.ts';
import { complianceRoutes } from './routes/compliance.ts';
import { auditRoutes } from './routes/audit.ts';
import { MALFORMED_JSON, recordsRoutes } from './routes/records.ts';
import { systemRoutes } from './routes/system.ts';
import { tenantRoutes } from './routes/tenants.ts';

/** Paths under /v1 that do not take the admin key (the records API takes a ticket). */
const PUBLIC_V1 = new Set(['/v1/records', '/v1/audit-key']);

export const buildServer = async (deps: HttpDeps, logger?: Logger): Promise<FastifyInstance> => {
  const app = Fastify({ loggerInstance: logger, bodyLimit: 1 << 20, ...(logger ? {} : { logger: false }) }) as unknown as FastifyInstance;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // JSON only: our own parser, so an empty body is "no body" (for calls that take none), bad
  // JSON a 400 with our error shape, and any other media type a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      // The records API checks its ticket before the shape, so bad JSON waits its turn there.
      if (_req.url.split('?')[0] === '/v1/records') return done(null, MALFORMED_JSON);
      const error = Object.assign(new Error('body is not valid JSON'), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON' });
      done(error, undefined);
    }
  });

  // Exports travel as JSON Lines, taken as text and parsed by the import itself.
  app.addContentTypeParser('application/x-ndjson', { parseAs: 'string', bodyLimit: 256 << 20 }, (_req, body, done) => done(null, String(body)));

  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const requests = new Counter({ name: 'custodian_http_requests_total', help: 'HTTP requests answered', labelNames: ['method', 'route', 'status'], registers: [metrics] });
  app.addHook('onResponse', async (req, reply) => {
    requests.inc({ method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) });
  });

  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    if (!path.startsWith('/v1/') || PUBLIC_V1.has(path)) return;
    if (!adminKeyMatches(req.headers.authorization, deps.adminKey))
      return reply.code(401).send({ error: 'unauthorized', reason: 'send the admin key as Authorization: Bearer <key>' });
  });

  app.setErrorHandler((error, req, reply) => {
    const { status, body } = refusalOfError(error as FastifyError);
    if (status >= 500) req.log.error({ err: error }, 'request failed');
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'not_found', what: 'route', method: req.method, path: req.url.split('?')[0] }));

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Custodian', version: '0.1.0', description: 'Versioned plugin records and the authority agent jobs run under.' },
      components: { securitySchemes: { admin: { type: 'http', scheme: 'bearer', description: 'The admin key' } } },
    },
    transform: jsonSchemaTransform,
  });

  tenantRoutes(app, deps);
  jobRoutes(app, deps);
  recordsRoutes(app, deps.records);
  complianceRoutes(app, deps.compliance);
  auditRoutes(app, { audit: deps.audit, db: deps.db });
  systemRoutes(app, deps, metrics);
  await app.ready();
  return app;
};
