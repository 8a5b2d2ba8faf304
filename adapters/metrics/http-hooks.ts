import type { FastifyInstance } from 'fastify';
import { STATUS } from '../http/status.ts';
import type { CustodianMetrics } from './registry.ts';

/** A known refusal code, or `other`: a label value never comes from a caller. */
const codeLabel = (code: unknown): string => (typeof code === 'string' && Object.hasOwn(STATUS, code) ? code : 'other');

/**
 * Request latency by the route pattern the router matched (`/v1/tenants/:t/jobs`, never the
 * raw URL, so the label set stays small and names no tenant), and the records API's refusals
 * by code. Every records answer, refused by the ticket gate, the route, or the error handler,
 * is sent as an object and so passes `preSerialization`: the one place all of them meet.
 */
export const instrumentHttp = (app: FastifyInstance, metrics: CustodianMetrics) => {
  // Callback hooks, not async ones: no promise per request for a counter increment.
  app.addHook('onResponse', (req, reply, done) => {
    const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpSeconds.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('preSerialization', (req, reply, payload: unknown, done) => {
    if (reply.statusCode >= 400 && req.routeOptions.config?.auth === 'ticket' && typeof payload === 'object' && payload !== null)
      metrics.refusals.inc({ route: req.routeOptions.url ?? 'unmatched', code: codeLabel((payload as { error?: unknown }).error) });
    done(null, payload);
  });
};
