import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry, type DomainEvent } from '../domain/events/registry.ts';
import {
  assertUntampered,
  type AppendConditions,
  type AppendResult,
  type AppendUnit,
  type Appended,
  TamperedLog,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type TamperedEventData,
} from '../domain/ports/event-store.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import { envelope, type Cause } from './envelope.ts';
import { backoff } from './backoff.ts';
import { streamQueues, type Batchable, type StreamQueues, type Waiting } from './stream-queue.ts';
import { guardToSend, heardVerdict, type CarriedGuard } from '../domain/ports/admission-guard.ts';
import { joinRows, type AppendRow, type KeyWork } from '../domain/ports/append-rows.ts';

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
  /** Many events in one pass, as `evolve` one after another would (see `Decider.fold`). */
  readonly fold?: (state: S, events: readonly Ev[]) => S;
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
  /**
   * `write` in a command's key work (see `CommandWrites.keys`): the events, and the key rows
   * what it sealed needs (they commit with the append). Absent: `write`, with no rows.
   */
  readonly writeInWork?: (events: readonly Ev[], keys: KeyWork) => Promise<{ readonly events: readonly DomainEvent[]; readonly rows: readonly AppendRow[] }>;
}

/**
 * What a command writes besides its events, as values its caller made: they go with the
 * command's append, and only with it.
 */
export interface CommandWrites {
  /** The key work its values are sealed in (the codec's `writeInWork` seals its events' in it too). */
  readonly keys?: KeyWork;
  /** The key rows the caller's seals answered (the body's): they commit with its append. */
  readonly rows?: readonly AppendRow[];
  /** The request's cached admission: carried by its appends until an answer said it was counted. */
  readonly guard?: CarriedGuard | null;
}

/**
 * Folded states kept between commands, caught up from their cached revision. A state is
 * updated in place by large deciders, so the cache hands out one entry per stream and the
 * handler only uses it under the stream's lock.
 */
export interface StateCache<S> {
  get(stream: string): Folded<S> | undefined;
  set(stream: string, folded: Folded<S>): void;
  /** Forgets a stream's state (one evolved past what committed): the next command folds it afresh. */
  delete(stream: string): void;
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
    delete(stream) {
      entries.delete(stream);
    },
  };
};

/**
 * How long commands are decided again while other instances keep moving their stream before
 * they are answered `unavailable` (each round some other writer committed, so the store makes
 * progress; only these commands did not).
 */
const CONTENDED_FOR_MS = 10_000;
const shared = streamQueues();

/** The default codec: the registry's, both ways. */
export const registryCodec = <Ev>(stream: string): Codec<Ev> => ({
  read: (r) => {
    const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
    if (E.isLeft(decoded)) throw new Error(`stream ${stream} revision ${r.revision}: ${decoded.left}`);
    return decoded.right as Ev;
  },
  write: (events) => events as unknown as readonly DomainEvent[],
});

/** How a state is moved by stored events: one at a time, or many in one pass (`Decider.fold`). */
type Evolving<Ev, S> = Pick<Aggregate<unknown, Ev, S>, 'evolve' | 'fold'>;

/**
 * How a catch-up folds events into a state that may hold snapshot parts not read yet (a
 * cold instance's state, or one read back from a snapshot after a conflict): `read` reads, in
 * as few reads as it can, the parts folding these events looks into; `evolve` runs one pure
 * evolve, reading any part it still meets and running it again (an evolve looks into
 * everything before it changes anything, so a look that throws leaves the state as it was).
 */
export interface PartsFold<Ev, S> {
  readonly read: (state: S, events: readonly Ev[]) => Promise<void>;
  readonly evolve: (work: () => S) => Promise<S>;
}

/** Every record MAC-checked, then decoded, in stream order. */
const decodeAll = async <Ev>(records: readonly RecordedEvent[], codec: Codec<Ev>): Promise<Ev[]> => {
  const events: Ev[] = [];
  for (const r of records) {
    assertUntampered(r);
    events.push(await codec.read(r));
  }
  return events;
};

/**
 * Folds a stream into `into` from the revision after its own (catching a cached state up):
 * with the aggregate's `fold`, every event read is folded in one pass; with `parts`, the
 * snapshot parts the events look into are read first, and the revision moves with each event
 * folded (a read that fails leaves `into` a prefix of the stream, never past its revision).
 */
export const catchUp = async <Ev, S>(
  store: EventStore,
  stream: string,
  aggregate: Evolving<Ev, S>,
  codec: Codec<Ev>,
  into: Folded<S>,
  parts?: PartsFold<Ev, S>,
): Promise<Folded<S>> => {
  const from = into.revision === 'no_stream' ? 0 : (into.revision as number) + 1;
  const records = await store.readStream(stream, from);
  const { fold } = aggregate;
  if (parts && records.length > 0) {
    const events = await decodeAll(records, codec);
    await parts.read(into.state, events);
    for (let i = 0; i < events.length; i++) {
      const state = into.state;
      into.state = await parts.evolve(() => aggregate.evolve(state, events[i]!));
      into.revision = records[i]!.revision;
    }
    return into;
  }
  if (fold && records.length > 1) {
    into.state = fold(into.state, await decodeAll(records, codec));
    into.revision = records.at(-1)!.revision;
    return into;
  }
  for (const r of records) {
    assertUntampered(r);
    into.state = aggregate.evolve(into.state, await codec.read(r));
    into.revision = r.revision;
  }
  return into;
};

/** Loads a stream and folds it into the aggregate's state. */
export const loadState = async <Ev extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  aggregate: Pick<Aggregate<unknown, Ev, S>, 'initialState' | 'evolve' | 'fold'>,
): Promise<{ state: S; revision: ExpectedRevision }> =>
  catchUp(store, stream, aggregate, registryCodec<Ev>(stream), { state: aggregate.initialState(), revision: 'no_stream' });

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
  readonly queues?: StreamQueues;
  /**
   * At most this many commands queued on one stream are decided in one batch (one after
   * another, each on the state the one before left) and appended together (default 1: one at
   * a time). A command with `conditions` is always decided alone.
   */
  readonly batch?: number;
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
  /** How long a command is decided again while other writers keep moving its stream (default 10 s), then refused `unavailable`. */
  readonly contendedForMs?: number;
  /** Called under the stream's lock after a successful append, with the state it left (to take snapshots). */
  readonly appended?: (stream: string, folded: Readonly<Folded<S>>) => void;
  /** For states that may hold snapshot parts not read yet: how a catch-up reads them before it folds (see `PartsFold`). */
  readonly parts?: PartsFold<Ev, S>;
  /**
   * A copy of a state that `evolve` updates in place, cheap (its large maps persistent and
   * shared), that stays as it was while the fold moves on. With it, a batch keeps the state
   * each of its appends leaves, and when a later append conflicts it goes on from the one
   * holding exactly what committed — cached, with every part it had read — instead of
   * forgetting the state and loading it again (from its snapshot, cold) on every conflict.
   */
  readonly copy?: (state: S) => S;
  /**
   * The newest version of each record its events remove, as the state it was decided on holds
   * it (keyed by `recordRef`): a fact of the decision that the removal's audit line names.
   */
  readonly newest?: (events: readonly Ev[], state: S) => ReadonlyMap<string, number>;
}

/** The cached state, else a snapshot, else the empty state: then caught up from its revision. */
const start = async <Ev, S>(
  stream: string,
  aggregate: Pick<Aggregate<unknown, Ev, S>, 'initialState'>,
  options: Pick<HandlerOptions<Ev, S>, 'cache' | 'snapshot'>,
): Promise<Folded<S>> => options.cache?.get(stream) ?? (await options.snapshot?.(stream)) ?? { state: aggregate.initialState(), revision: 'no_stream' };

/** The refusal for a fold that met a tampered event (`TamperedLog`), or null for any other error. */
const tamperedRefusal = (options: Pick<HandlerOptions<unknown, unknown>, 'tampered'>, error: unknown): E.Either<Refusal, never> | null =>
  error instanceof TamperedLog
    ? E.left(
        options.tampered?.(error.detail) ?? refusal('tampered', { stream: error.detail.stream, revision: error.detail.revision, reason: error.detail.reason }),
      )
    : null;

type Outcome<Ev, S> = E.Either<Refusal, { state: S; events: readonly Ev[]; position: number | null }>;

/** One command waiting on its stream, with everything it is decided and appended with. */
interface Queued<C, Ev, S> {
  readonly store: EventStore;
  readonly stream: string;
  readonly aggregate: Aggregate<C, Ev, S>;
  readonly command: C | ((state: S) => C | Promise<C>);
  readonly cause: Cause;
  readonly options: HandlerOptions<Ev, S, C>;
  readonly writes: CommandWrites;
}

type Entry<C, Ev, S> = Waiting<Queued<C, Ev, S>, Outcome<Ev, S>>;

/** What one command of a batch came to: events to append, an answer with nothing to append, or an error of its own. */
type Decided<C, Ev, S> =
  | { readonly kind: 'append'; readonly entry: Entry<C, Ev, S>; readonly events: readonly Ev[]; readonly unit: AppendUnit }
  | { readonly kind: 'answer'; readonly entry: Entry<C, Ev, S>; readonly outcome: Outcome<Ev, S> }
  | { readonly kind: 'error'; readonly entry: Entry<C, Ev, S>; readonly error: unknown };

/** The revision a stream is at after `n` more events. */
const advanced = (revision: ExpectedRevision, n: number): number => (typeof revision === 'number' ? revision : -1) + n;

/**
 * Decides the batch's commands one after another, each on the state the one before it left:
 * the one before it's events are evolved into `folded.state` (in place, for large deciders)
 * before the next is decided, and its expected revision is the one the one before it leaves.
 * The last append's events are left for the commit to evolve (`pending`), so a batch of one
 * whose append conflicts leaves the cached state as it was.
 */
const decideInOrder = async <C, Ev, S>(entries: readonly Entry<C, Ev, S>[], folded: Folded<S>, codec: Codec<Ev>) => {
  const { stream, aggregate, options } = entries[0]!.item;
  const decided: Decided<C, Ev, S>[] = [];
  let expected = folded.revision;
  let pending: readonly Ev[] | null = null;
  let evolved = 0;
  /** With `copy`: the state holding exactly the batch's first i appends, at i. */
  const kept: S[] = options.copy ? [options.copy(folded.state)] : [];
  for (const entry of entries) {
    const { command, cause, writes } = entry.item;
    if (pending) {
      folded.state = pending.reduce(aggregate.evolve, folded.state);
      pending = null;
      evolved++;
      if (options.copy) kept.push(options.copy(folded.state));
    }
    try {
      const c = typeof command === 'function' ? await (command as (s: S) => C | Promise<C>)(folded.state) : command;
      const decision = aggregate.decide(c, folded.state);
      if (E.isLeft(decision) || decision.right.length === 0) {
        decided.push({ kind: 'answer', entry, outcome: E.isLeft(decision) ? decision : E.right({ state: folded.state, events: [], position: null }) });
        continue;
      }
      const events = decision.right;
      const conditions = options.conditions?.(c);
      const newest = options.newest?.(events, folded.state);
      const written = writes.keys && codec.writeInWork ? await codec.writeInWork(events, writes.keys) : { events: await codec.write(events), rows: [] };
      const unit: AppendUnit = {
        stream,
        events: envelope(cause, written.events),
        expected,
        rows: joinRows(writes.rows ?? [], written.rows),
        guard: guardToSend(writes.guard),
        ...(conditions ? { conditions } : {}),
        ...(newest && newest.size > 0 ? { newest } : {}),
      };
      decided.push({ kind: 'append', entry, events, unit });
      expected = advanced(expected, events.length);
      pending = events;
    } catch (error) {
      const tampered = tamperedRefusal(options, error);
      decided.push(tampered ? { kind: 'answer', entry, outcome: tampered } : { kind: 'error', entry, error });
    }
  }
  return { decided, pending, evolved, kept };
};

/** The batch's appends: one alone, or several as one chain (one statement where the store can). */
const appendAll = async (store: EventStore, units: readonly AppendUnit[]): Promise<PromiseSettledResult<AppendResult>[]> => {
  if (units.length === 0) return [];
  if (units.length === 1) {
    const [{ stream, events, expected, ...carries }] = units as [AppendUnit];
    return Promise.allSettled([store.append(stream, events, expected, carries)]);
  }
  return Promise.allSettled(store.appendChain(units));
};

/**
 * The state holding exactly what committed, for the answers of a batch of which only a prefix
 * committed: from the snapshot and the log; when a snapshot part is meanwhile not as its head
 * names it, from the log alone. It never fails for a part: commands that committed are
 * answered, never decided again.
 */
const committedState = async <C, Ev, S>(
  store: EventStore,
  stream: string,
  aggregate: Aggregate<C, Ev, S>,
  options: HandlerOptions<Ev, S, C>,
  codec: Codec<Ev>,
): Promise<S> => {
  try {
    return (await catchUp(store, stream, aggregate, codec, await start(stream, aggregate, options), options.parts)).state;
  } catch (error) {
    if (!options.parts || error instanceof TamperedLog) throw error;
    return (await catchUp(store, stream, aggregate, codec, { state: aggregate.initialState(), revision: 'no_stream' })).state;
  }
};

/**
 * One round of a batch: decide in order, append, then answer. An append is answered once the
 * commit holding it is; its store made the chain's commits a prefix (none after one that did not).
 * A refusal or "nothing to do" is answered only when every append decided before it committed
 * and the state it was decided on is proven current (read from the stream this round, or an
 * append of this round met its expected revision). Everything else goes round again: the
 * commands it answers no more, the ones it does not, returned.
 */
const decideRound = async <C, Ev, S>(entries: readonly Entry<C, Ev, S>[], folded: Folded<S>, caughtUp: boolean, codec: Codec<Ev>) => {
  const { store, stream, aggregate, options } = entries[0]!.item;
  const { decided, pending, evolved, kept } = await decideInOrder(entries, folded, codec);
  const appends = decided.filter((d): d is Extract<Decided<C, Ev, S>, { kind: 'append' }> => d.kind === 'append');
  const results = await appendAll(
    store,
    appends.map((d) => d.unit),
  );
  const ok = (r: PromiseSettledResult<AppendResult> | undefined): r is PromiseFulfilledResult<E.Right<Appended>> =>
    r?.status === 'fulfilled' && E.isRight(r.value);
  // A verdict that counted a request's guard: its later appends (decided again) go without it.
  appends.forEach((d, i) => {
    const r = results[i];
    if (r?.status === 'fulfilled') heardVerdict(d.entry.item.writes.guard, r.value);
  });
  let committed = 0;
  while (committed < results.length && ok(results[committed])) committed++;
  const proven = caughtUp || committed > 0;

  // The cached state must hold exactly what committed: evolve the last append when it did,
  // forget a state evolved past what committed (the next round folds it afresh).
  if (committed === appends.length && pending) folded.state = pending.reduce(aggregate.evolve, folded.state);
  const positions = results.slice(0, committed).map((r) => (r as PromiseFulfilledResult<E.Right<Appended>>).value.right);
  // What committed is answered with a state holding nothing else: a state evolved past it is
  // forgotten, and when some of the batch did commit, the stream is folded afresh for their answers.
  let answered = folded.state;
  const back = evolved > committed ? kept[committed] : undefined;
  if (back !== undefined) {
    // The state as it was after the appends that committed: the committed commands are answered
    // with it, and the batch goes on from a copy of it, cached (the next round evolves that copy
    // in place while their callers may still be reading theirs).
    answered = back;
    folded.state = options.copy!(back);
    if (committed > 0) {
      folded.revision = positions.at(-1)!.nextExpectedRevision;
      options.appended?.(stream, folded);
    }
  } else if (evolved > committed) {
    options.cache?.delete(stream);
    if (committed > 0) answered = await committedState(store, stream, aggregate, options, codec);
  } else if (committed > 0) {
    folded.revision = positions.at(-1)!.nextExpectedRevision;
    options.appended?.(stream, folded);
  }

  const again: Entry<C, Ev, S>[] = [];
  let conflicted = false;
  let chainHeld = true;
  let a = 0;
  for (const d of decided) {
    if (d.kind === 'error') d.entry.reject(d.error);
    else if (d.kind === 'answer') {
      if (chainHeld && proven) d.entry.resolve(E.isRight(d.outcome) ? E.right({ ...d.outcome.right, state: answered }) : d.outcome);
      else again.push(d.entry);
    } else {
      const i = a++;
      if (i < committed) d.entry.resolve(E.right({ state: answered, events: d.events, position: positions[i]!.position }));
      else {
        chainHeld = false;
        const r = results[i]!;
        if (r.status === 'rejected') d.entry.reject(r.reason);
        else {
          conflicted = true;
          again.push(d.entry);
        }
      }
    }
  }
  return { again, conflicted };
};

/**
 * Decides a batch of commands queued on one stream until each is answered: load (the cached
 * state first, optimistically; else a snapshot or the start, caught up), decide in order,
 * append, answer; on a conflict, decide what is left again from the newer state.
 */
const runBatch = async <C, Ev, S>(entries: readonly Entry<C, Ev, S>[]): Promise<void> => {
  const { store, stream, aggregate, options } = entries[0]!.item;
  const codec = options.codec ?? registryCodec<Ev>(stream);
  let waiting = entries;
  const giveUpAt = Date.now() + (options.contendedForMs ?? CONTENDED_FOR_MS);
  for (let attempt = 1; waiting.length > 0; attempt++) {
    if (attempt > 1 && Date.now() > giveUpAt) {
      for (const e of waiting) e.resolve(E.left(outrun(options.contendedForMs ?? CONTENDED_FOR_MS)));
      return;
    }
    // First attempt on a cached state: decided without reading the stream (optimistic). An
    // append then meets the expected revision, which proves the state current or sends us
    // round again. A cached state is only ever moved by appends that committed, so it is a
    // prefix of the stream: catch it up.
    const optimistic = attempt === 1 ? options.cache?.get(stream) : undefined;
    let folded: Folded<S>;
    try {
      folded = optimistic ?? (await catchUp(store, stream, aggregate, codec, await start(stream, aggregate, options), options.parts));
    } catch (error) {
      // Nothing is decided from a log that does not verify: every command queued on it is refused.
      const tampered = tamperedRefusal(options, error);
      for (const e of waiting)
        if (tampered) e.resolve(tampered);
        else e.reject(error);
      return;
    }
    options.cache?.set(stream, folded);
    let round: Awaited<ReturnType<typeof decideRound<C, Ev, S>>>;
    try {
      round = await decideRound(waiting, folded, !optimistic, codec);
    } catch (error) {
      // The state may be evolved past what committed (a batch decided, its append failed before
      // it was answered): it is forgotten, and the next command folds the stream afresh.
      options.cache?.delete(stream);
      throw error;
    }
    const { again, conflicted } = round;
    waiting = again;
    // A stale cache is not contention: go round again at once.
    if (waiting.length > 0 && conflicted && !optimistic) await backoff(attempt);
  }
};

/** The answer to commands other writers kept outrunning: nothing of them was written. */
const outrun = (ms: number) =>
  refusal('unavailable', {
    reason: `other writers kept changing what this request writes for ${ms / 1000} s, so it was decided again each time and nothing of it was written; retry the same request`,
  });

/** One batch kind per aggregate and options: only commands of one kind are decided together. */
const kinds = new WeakMap<object, WeakMap<object, Batchable<Queued<never, never, never>, Outcome<never, never>>>>();
const batchableOf = <C, Ev, S>(aggregate: Aggregate<C, Ev, S>, options: HandlerOptions<Ev, S, C>): Batchable<Queued<C, Ev, S>, Outcome<Ev, S>> => {
  let byOptions = kinds.get(aggregate);
  if (!byOptions) kinds.set(aggregate, (byOptions = new WeakMap()));
  let kind = byOptions.get(options);
  if (!kind) {
    const made: Batchable<Queued<C, Ev, S>, Outcome<Ev, S>> = {
      kind: {},
      max: options.conditions ? 1 : (options.batch ?? 1),
      run: (entries) => runBatch(entries),
    };
    kind = made as unknown as Batchable<Queued<never, never, never>, Outcome<never, never>>;
    byOptions.set(options, kind);
  }
  return kind as unknown as Batchable<Queued<C, Ev, S>, Outcome<Ev, S>>;
};

/**
 * The one command path: load (from the cache, caught up), decide, wrap the events through
 * the one envelope, append with the revision we decided on, and on a conflict decide again
 * from the newer state. Commands to one stream queue in this process, and with `batch` those
 * queued together are decided in order and appended together; other processes meet at the
 * expected revision. A refusal is returned, never thrown. `writes`: what the command's append
 * carries besides its events (its key rows, its request's guard).
 */
export const handle = async <C, Ev, S>(
  store: EventStore,
  stream: string,
  aggregate: Aggregate<C, Ev, S>,
  command: C | ((state: S) => C | Promise<C>),
  cause: Cause,
  options: HandlerOptions<Ev, S, C> = {},
  writes: CommandWrites = {},
): Promise<Outcome<Ev, S>> =>
  (options.queues ?? shared).batched(`${store.name}|${stream}`, batchableOf(aggregate, options), { store, stream, aggregate, command, cause, options, writes });

/** The stream's state caught up, read under the stream's lock (for a check before a command). */
export const inspect = async <Ev, S>(
  store: EventStore,
  stream: string,
  aggregate: Pick<Aggregate<unknown, Ev, S>, 'initialState' | 'evolve'>,
  look: (state: S) => Promise<unknown> | unknown,
  options: HandlerOptions<Ev, S> = {},
) =>
  (options.queues ?? shared).exclusive(`${store.name}|${stream}`, async () => {
    const codec = options.codec ?? registryCodec<Ev>(stream);
    const folded = await catchUp(store, stream, aggregate, codec, await start(stream, aggregate, options), options.parts);
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
