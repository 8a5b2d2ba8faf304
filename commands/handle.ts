import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry, type DomainEvent } from '../domain/events/registry.ts';
import {
  assertUntampered,
  type AppendConditions,
  TamperedLog,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type TamperedEventData,
} from '../domain/ports/event-store.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import { envelope, type Cause } from './envelope.ts';
import { backoff, streamLocks, type StreamLocks } from './exclusive.ts';

export interface CommandContext {
  readonly tenant: string;
  readonly correlationId?: string | null;
  /** What caused this command (a call); a fresh id per decision when absent. */
  readonly causationId?: string | null;
}

export interface Handled<S> {
  readonly state: S;
  readonly events: readonly DomainEvent[];
  /** Global position of the last event appended, or null when the decision was "nothing to do". */
  readonly position: number | null;
}

/** A decider: the pure core of one aggregate. */
export interface Aggregate<C, Ev, S> {
  readonly initialState: () => S;
  readonly evolve: (state: S, event: Ev) => S;
  readonly decide: (command: C, state: S) => E.Either<Refusal, readonly Ev[]>;
}

/** A stream's folded state and the revision it was folded up to. */
export interface Folded<S> {
  state: S;
  revision: ExpectedRevision;
}

/**
 * How a handler turns stored events into the decider's events and back. The default decodes
 * and encodes through the registry; records open and seal digests here, outside the pure decider.
 */
export interface Codec<Ev> {
  readonly read: (recorded: RecordedEvent) => Promise<Ev> | Ev;
  readonly write: (events: readonly Ev[]) => Promise<readonly DomainEvent[]> | readonly DomainEvent[];
}

/**
 * Folded states kept between commands, caught up from their cached revision. A state is
 * updated in place by large deciders, so the cache hands out one entry per stream and the
 * handler only uses it under the stream's lock.
 */
export interface StateCache<S> {
  get(stream: string): Folded<S> | undefined;
  set(stream: string, folded: Folded<S>): void;
}

/** A least-recently-used cache of folded states. */
export const stateCache = <S>(capacity: number): StateCache<S> => {
  const entries = new Map<string, Folded<S>>();
  return {
    get(stream) {
      const entry = entries.get(stream);
      if (entry) {
        entries.delete(stream);
        entries.set(stream, entry);
      }
      return entry;
    },
    set(stream, folded) {
      entries.delete(stream);
      entries.set(stream, folded);
      if (entries.size > capacity) entries.delete(entries.keys().next().value!);
    },
  };
};

const MAX_ATTEMPTS = 50;
const exclusive = streamLocks();

const registryCodec = <Ev>(stream: string): Codec<Ev> => ({
  read: (r) => {
    const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
    if (E.isLeft(decoded)) throw new Error(`stream ${stream} revision ${r.revision}: ${decoded.left}`);
    return decoded.right as Ev;
  },
  write: (events) => events as unknown as readonly DomainEvent[],
});

/** Folds a stream into `into` from the revision after its own (catching a cached state up). */
const catchUp = async <Ev, S>(store: EventStore, stream: string, evolve: (s: S, e: Ev) => S, codec: Codec<Ev>, into: Folded<S>): Promise<Folded<S>> => {
  const from = into.revision === 'no_stream' ? 0 : (into.revision as number) + 1;
  for (const r of await store.readStream(stream, from)) {
    assertUntampered(r);
    into.state = evolve(into.state, await codec.read(r));
    into.revision = r.revision;
  }
  return into;
};

/** Loads a stream and folds it into the aggregate's state. */
export const loadState = async <Ev extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  aggregate: Pick<Aggregate<unknown, Ev, S>, 'initialState' | 'evolve'>,
): Promise<{ state: S; revision: ExpectedRevision }> =>
  catchUp(store, stream, aggregate.evolve, registryCodec<Ev>(stream), { state: aggregate.initialState(), revision: 'no_stream' });

export interface HandlerOptions<Ev, S, C = unknown> {
  /** Keeps folded states between commands (then `evolve` may update a state in place). */
  readonly cache?: StateCache<S>;
  readonly codec?: Codec<Ev>;
  /**
   * A state at some revision, taken without replaying the stream (a snapshot, or a compact
   * state read from models kept in the append's transaction); the handler catches it up.
   * Null when there is none: the stream is folded from its first event.
   */
  readonly snapshot?: (stream: string) => Promise<Folded<S> | null>;
  /**
   * The per-stream queue commands wait in. Each service instance gives its own (with its own
   * cache), so two instances in one process still meet only at the expected revision.
   */
  readonly locks?: StreamLocks;
  /**
   * The refusal for a stream whose log does not verify (an event edited, one missing): by
   * default `tampered`; an aggregate may name its own (a job's chain: `envelope_invalid`).
   */
  readonly tampered?: (detail: TamperedEventData) => Refusal;
  /**
   * What the command was decided on besides its own stream (a removal: the tenant's holds as
   * it read them), carried by the command itself: the append commits only while those stand,
   * else the command is decided again.
   */
  readonly conditions?: (command: C) => AppendConditions | undefined;
  /** Called under the stream's lock after a successful append, with the state it left (to take snapshots). */
  readonly appended?: (stream: string, folded: Readonly<Folded<S>>) => void;
}

/** The cached state, else a snapshot, else the empty state: then caught up from its revision. */
const start = async <Ev, S>(
  stream: string,
  aggregate: Pick<Aggregate<unknown, Ev, S>, 'initialState'>,
  options: Pick<HandlerOptions<Ev, S>, 'cache' | 'snapshot'>,
): Promise<Folded<S>> => options.cache?.get(stream) ?? (await options.snapshot?.(stream)) ?? { state: aggregate.initialState(), revision: 'no_stream' };

/** Nothing is decided from a log that does not verify: the fold's `TamperedLog` becomes a refusal. */
const refuseTampered = async <T>(options: Pick<HandlerOptions<unknown, unknown>, 'tampered'>, work: () => Promise<E.Either<Refusal, T>>) => {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof TamperedLog)) throw error;
    return E.left(
      options.tampered?.(error.detail) ?? refusal('tampered', { stream: error.detail.stream, revision: error.detail.revision, reason: error.detail.reason }),
    );
  }
};

/**
 * The one command path: load (from the cache, caught up), decide, wrap the events through
 * the one envelope, append with the revision we decided on, and on a conflict decide again
 * from the newer state. Commands to one stream queue in this process; other processes meet
 * at the expected revision. A refusal is returned, never thrown.
 */
export const handle = async <C, Ev, S>(
  store: EventStore,
  stream: string,
  aggregate: Aggregate<C, Ev, S>,
  command: C | ((state: S) => C | Promise<C>),
  cause: Cause,
  options: HandlerOptions<Ev, S, C> = {},
): Promise<E.Either<Refusal, { state: S; events: readonly Ev[]; position: number | null }>> =>
  (options.locks ?? exclusive)(`${store.name}|${stream}`, async () =>
    refuseTampered<{ state: S; events: readonly Ev[]; position: number | null }>(options, async () => {
      const codec = options.codec ?? registryCodec<Ev>(stream);
      for (let attempt = 1; ; attempt++) {
        // First attempt on a cached state: decided without reading the stream (optimistic). An
        // append then meets the expected revision, which proves the state current or sends us
        // round again; a refusal or "nothing to do" is only answered from a state caught up.
        const optimistic = attempt === 1 ? options.cache?.get(stream) : undefined;
        // A cached state is only ever moved by an append that succeeded, so it is a prefix of
        // the stream: catch it up.
        const folded = optimistic ?? (await catchUp(store, stream, aggregate.evolve, codec, await start(stream, aggregate, options)));
        options.cache?.set(stream, folded);
        const c = typeof command === 'function' ? await (command as (s: S) => C | Promise<C>)(folded.state) : command;
        const decision = aggregate.decide(c, folded.state);
        const events = E.isRight(decision) ? decision.right : [];
        if (optimistic && events.length === 0) continue;
        if (E.isLeft(decision)) return decision;
        if (events.length === 0) return E.right({ state: folded.state, events, position: null });
        const stored = envelope(cause, await codec.write(events));
        const appended = await store.append(stream, stored, folded.revision, options.conditions?.(c));
        if (E.isRight(appended)) {
          folded.state = events.reduce(aggregate.evolve, folded.state);
          folded.revision = appended.right.nextExpectedRevision;
          options.appended?.(stream, folded);
          return E.right({ state: folded.state, events, position: appended.right.position });
        }
        if (attempt >= MAX_ATTEMPTS) throw new Error(`stream ${stream}: still conflicting after ${MAX_ATTEMPTS} attempts`);
        // A stale cache is not contention: go round again at once.
        if (!optimistic) await backoff(attempt);
      }
    }),
  );

/** The stream's state caught up, read under the stream's lock (for a check before a command). */
export const inspect = async <Ev, S>(
  store: EventStore,
  stream: string,
  aggregate: Pick<Aggregate<unknown, Ev, S>, 'initialState' | 'evolve'>,
  look: (state: S) => Promise<unknown> | unknown,
  options: HandlerOptions<Ev, S> = {},
) =>
  (options.locks ?? exclusive)(`${store.name}|${stream}`, async () => {
    const codec = options.codec ?? registryCodec<Ev>(stream);
    const folded = await catchUp(store, stream, aggregate.evolve, codec, await start(stream, aggregate, options));
    options.cache?.set(stream, folded);
    return look(folded.state);
  });

/** `handle` for the admin aggregates, with the signature they have always used. */
export const handleCommand = async <C, Ev extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  aggregate: Aggregate<C, Ev, S>,
  command: C | ((state: S) => C),
  ctx: CommandContext,
  tampered?: (detail: TamperedEventData) => Refusal,
): Promise<E.Either<Refusal, Handled<S>>> =>
  handle(
    store,
    stream,
    aggregate,
    command,
    { tenant: ctx.tenant, causation: ctx.causationId ?? randomUUID(), correlation: ctx.correlationId ?? null },
    tampered ? { tampered } : {},
  );
