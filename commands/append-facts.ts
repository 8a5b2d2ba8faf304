import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry, type DomainEvent } from '../domain/events/registry.ts';
import type { EventStore } from '../domain/ports/event-store.ts';

/**
 * Appends facts that decide nothing and conflict with nothing (audit facts: reads, refusals)
 * with expected revision `any`. Answers the position of the last one.
 */
export const appendFacts = async (store: EventStore, stream: string, tenant: string, events: readonly DomainEvent[], causation: string | null = null) => {
  const appended = await store.append(
    stream,
    events.map((e) => ({ event_id: randomUUID(), ...eventRegistry.encode(e), metadata: { tenant, causation_id: causation, correlation_id: null } })),
    'any',
  );
  if (E.isLeft(appended)) throw new Error('an append with expected revision any cannot conflict');
  return appended.right.position;
};
