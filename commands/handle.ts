import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry, type DomainEvent } from '../domain/events/registry.ts';
import type { EventStore, ExpectedRevision } from '../domain/ports/event-store.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { backoff, streamLocks } from './exclusive.ts';

export interface CommandContext {
  readonly tenant: string;
  readonly correlationId?: string | null;
}

export interface Handled<S> {
  readonly state: S;
  readonly events: readonly DomainEvent[];
  /** Global position of the last event appended, or null when the decision was "nothing to do". */
  readonly position: number | null;
}

export interface Aggregate<C, Ev extends DomainEvent, S> {
  readonly initialState: () => S;
  readonly evolve: (state: S, event: Ev) => S;
  readonly decide: (command: C, state: S) => E.Either<Refusal, readonly Ev[]>;
}

const MAX_ATTEMPTS = 50;
const exclusive = streamLocks();

/** Loads a stream and folds it into the aggregate's state. */
export const loadState = async <Ev extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  aggregate: Pick<Aggregate<unknown, Ev, S>, 'initialState' | 'evolve'>,
): Promise<{ state: S; revision: ExpectedRevision }> => {
  const recorded = await store.readStream(stream);
  let state = aggregate.initialState();
  for (const r of recorded) {
    const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
    if (E.isLeft(decoded)) throw new Error(`stream ${stream} revision ${r.revision}: ${decoded.left}`);
    state = aggregate.evolve(state, decoded.right as Ev);
  }
  return { state, revision: recorded.length === 0 ? 'no_stream' : recorded.at(-1)!.revision };
};

/**
 * The one command path: load, decide, append with the revision we decided on, and on a
 * conflict decide again from the newer state. A refusal is returned, never thrown.
 */
export const handleCommand = async <C, Ev extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  aggregate: Aggregate<C, Ev, S>,
  command: C | ((state: S) => C),
  ctx: CommandContext,
): Promise<E.Either<Refusal, Handled<S>>> =>
  exclusive(`${store.name}|${stream}`, async () => {
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await loadState(store, stream, aggregate);
    const c = typeof command === 'function' ? (command as (s: S) => C)(state) : command;
    const decision = aggregate.decide(c, state);
    if (E.isLeft(decision)) return decision;
    const events = decision.right;
    if (events.length === 0) return E.right({ state, events, position: null });
    const causation = randomUUID();
    const appended = await store.append(
      stream,
      events.map((e) => ({
        event_id: randomUUID(),
        ...eventRegistry.encode(e),
        metadata: { tenant: ctx.tenant, causation_id: causation, correlation_id: ctx.correlationId ?? null },
      })),
      revision,
    );
    if (E.isRight(appended)) {
      return E.right({ state: events.reduce(aggregate.evolve, state), events, position: appended.right.position });
    }
    if (attempt >= MAX_ATTEMPTS) throw new Error(`stream ${stream}: still conflicting after ${MAX_ATTEMPTS} attempts`);
    await backoff(attempt);
  }
  });
