import { randomUUID } from 'node:crypto';
import { eventRegistry, type DomainEvent } from '../domain/events/registry.ts';
import type { NewEvent } from '../domain/ports/event-store.ts';

/**
 * Why a batch of events was written: `causation` is what caused it (a call, a command),
 * `correlation` the workflow it belongs to (a job, a client's request id). Both are optional;
 * the event id is always fresh.
 */
export interface Cause {
  readonly tenant: string;
  readonly causation?: string | null;
  readonly correlation?: string | null;
}

/**
 * The one way a domain event is wrapped for storage: a fresh event id, the versioned
 * encoding, and the tenant, causation and correlation as metadata. Every command path uses
 * it, so the log's metadata follows one rule.
 */
export const envelope = (cause: Cause, events: readonly DomainEvent[]): NewEvent[] =>
  events.map((e) => ({
    event_id: randomUUID(),
    ...eventRegistry.encode(e),
    metadata: { tenant: cause.tenant, causation_id: cause.causation ?? null, correlation_id: cause.correlation ?? null },
  }));
