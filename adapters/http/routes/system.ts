import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';
import type { HttpDeps } from '../deps.ts';
import { ClockBody } from '../schemas.ts';
import { PUBLIC } from '../route-auth.ts';
import { z } from 'zod';

const AuditKeyQuery = z.strictObject({ format: z.enum(['pem', 'vkey']).optional() });
import { Answers, ok, okAs, okIn, refusals } from '../responses.ts';

/** The public routes: health, the API document, metrics and the audit public key. */
export const systemRoutes = (app: FastifyInstance, deps: HttpDeps, metrics: Registry) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/healthz',
    {
      config: PUBLIC,
      schema: {
        tags: ['system'],
        summary: 'health: the database answers',
        response: { ...ok(Answers.health, 'healthy'), ...ok(Answers.unhealthy, 'the database does not answer', 503) },
      },
    },
    async (_req, reply) => {
      try {
        await deps.db.query('SELECT 1');
        return {
          status: 'ok',
          event_store: deps.store.name,
          checkpoints: deps.runner.checkpoints(),
          relay: deps.relay ? { topic: deps.relay.topic, position: deps.relay.position() } : null,
        };
      } catch {
        return reply.code(503).send({ status: 'unavailable', reason: 'the database does not answer' });
      }
    },
  );

  r.get('/openapi.json', { config: PUBLIC, schema: { hide: true } }, async () => app.swagger());

  r.get(
    '/metrics',
    {
      config: PUBLIC,
      schema: { tags: ['system'], summary: 'Prometheus metrics', response: { ...okAs('text/plain', 'Prometheus text format'), ...refusals(503) } },
    },
    async (_req, reply) => {
      // The log gauges read the database on scrape: when it does not answer, say so, as /healthz does.
      const text = await metrics.metrics().catch(() => null);
      if (text === null) return reply.code(503).send({ error: 'unavailable', reason: 'the database does not answer' });
      return reply.header('content-type', metrics.contentType).send(text);
    },
  );

  r.get(
    '/v1/audit-key',
    {
      config: PUBLIC,
      schema: {
        querystring: AuditKeyQuery,
        tags: ['audit'],
        summary: 'the audit public key: PEM (SPKI), or with ?format=vkey the C2SP note verifier key of the checkpoints',
        response: okIn(
          { 'application/x-pem-file': z.string(), 'text/plain': z.string() },
          'the public key: PEM (SPKI), or with ?format=vkey the verifier key as text/plain',
        ),
      },
    },
    async (req, reply) =>
      req.query.format === 'vkey'
        ? reply.header('content-type', 'text/plain; charset=utf-8').send(`${deps.auditVkey}\n`)
        : reply.header('content-type', 'application/x-pem-file').send(deps.auditPublicKey),
  );
};

/** `POST /v1/_clock`, an admin route, only with CUSTODIAN_TEST_CLOCK=1. */
export const clockRoutes = (admin: FastifyInstance, deps: HttpDeps) => {
  if (!deps.testClock) return;
  const clock = deps.testClock;
  admin.withTypeProvider<ZodTypeProvider>().post(
    '/v1/_clock',
    {
      schema: {
        body: ClockBody,
        security: [{ admin: [] }],
        tags: ['system'],
        summary: 'moves the service clock forward (test clock only)',
        response: ok(Answers.clock, 'the service clock now'),
      },
    },
    async (req) => ({
      now_ms: clock.advance(req.body.advance_ms),
    }),
  );
};
