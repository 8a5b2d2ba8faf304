import * as E from 'fp-ts/lib/Either.js';
import type { DomainEvent } from '../domain/events/registry.ts';
import type { AppendWith, EventStore } from '../domain/ports/event-store.ts';
import { envelope } from './envelope.ts';

/**
 * Appends facts that decide nothing and conflict with nothing (audit facts: reads, refusals)
 * with expected revision `any`. Answers the position of the last one. `carries`: what commits
 * with them (a read's request guard).
 */
export const appendFacts = async (
  store: EventStore,
  stream: string,
  tenant: string,
  events: readonly DomainEvent[],
  causation: string | null = null,
  correlation: string | null = null,
  carries: AppendWith = {},
) => {
  const appended = await store.append(stream, envelope({ tenant, causation, correlation }, events), 'any', carries);
  if (E.isLeft(appended)) throw new Error('an append with expected revision any cannot conflict');
  return appended.right.position;
};
