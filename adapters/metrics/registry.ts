import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's metrics, one registry per service (tests run several in one process).
 * Labels are bounded by construction: event types, route patterns, statuses and refusal
 * codes come from our code, never from a caller; no tenant, plugin or key is ever a label,
 * because `/metrics` is public.
 */
export interface CustodianMetrics {
  readonly registry: Registry;
  readonly eventsAppended: Counter<'type'>;
  readonly appendSeconds: Histogram<never>;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpSeconds: Histogram<'method' | 'route' | 'status'>;
  readonly refusals: Counter<'route' | 'code'>;
}

/** Small, fixed buckets: a put is milliseconds, a slow import seconds. */
const APPEND_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const HTTP_BUCKETS = [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

export const createMetrics = (): CustodianMetrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    eventsAppended: new Counter({
      name: 'custodian_events_appended_total',
      help: 'Events appended to the log, by event type',
      labelNames: ['type'],
      registers,
    }),
    appendSeconds: new Histogram({
      name: 'custodian_append_duration_seconds',
      help: 'Time one append to the log took (the MAC, the write and its commit), seconds',
      buckets: APPEND_BUCKETS,
      registers,
    }),
    httpRequests: new Counter({ name: 'custodian_http_requests_total', help: 'HTTP requests answered', labelNames: ['method', 'route', 'status'], registers }),
    httpSeconds: new Histogram({
      name: 'custodian_http_request_duration_seconds',
      help: 'HTTP request latency by matched route pattern and status, seconds',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    }),
    refusals: new Counter({
      name: 'custodian_records_refusals_total',
      help: 'Refusals answered by the records API (records, files and results routes), by code',
      labelNames: ['route', 'code'],
      registers,
    }),
  };
};
