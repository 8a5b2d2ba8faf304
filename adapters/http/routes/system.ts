import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';
import type { HttpDeps } from '../deps.ts';
import { ClockBody } from '../schemas.ts';
import { ADMIN, PUBLIC } from '../route-auth.ts';

export const systemRoutes = (app: FastifyInstance, deps: HttpDeps, metrics: Registry) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/healthz', { config: PUBLIC, schema: { tags: ['system'] } }, async (_req, reply) => {
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
  });

  r.get('/openapi.json', { config: PUBLIC, schema: { hide: true } }, async () => app.swagger());

  r.get('/metrics', { config: PUBLIC, schema: { tags: ['system'] } }, async (_req, reply) =>
    reply.header('content-type', metrics.contentType).send(await metrics.metrics()));

  if (deps.testClock) {
    const clock = deps.testClock;
    r.post('/v1/_clock', { config: ADMIN, schema: { body: ClockBody, security: [{ admin: [] }], tags: ['system'] } }, async (req) => ({
      now_ms: clock.advance(req.body.advance_ms),
    }));
  }
};
