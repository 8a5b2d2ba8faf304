import type { EventStore } from '../domain/ports/event-store.ts';
import type { Snapshot, SnapshotStore } from '../domain/ports/snapshots.ts';
import type { PackedPart, WrittenParts } from '../domain/shared/snapshot-parts.ts';
import { withParts } from '../queries/job-parts.ts';
import { writeLater, writeSnapshot } from '../queries/snapshot-write.ts';
import { catchUp, registryCodec, type Aggregate, type Codec, type Folded, type HandlerOptions, type StateCache } from './handle.ts';
import { snapshotCadence } from './snapshot-cadence.ts';
import { headOrReplay, snapshotPartsRetry } from './snapshot-parts-retry.ts';

/**
 * How an aggregate's streams are snapshotted, declared once beside it: when a snapshot is
 * taken, how its head is opened (under its MAC) and what it holds. A snapshot is only ever a
 * cache of the log: one that does not hold is not used, and the stream is folded whole.
 */
export interface SnapshotPolicy<Ev, S, Taken> {
  readonly store: SnapshotStore;
  /** Events between the snapshots this instance takes of a stream: a cold load reads about this many after one at most. */
  readonly every: number;
  /** How many streams' snapshot revisions are remembered before all are forgotten (a forgotten one is taken again sooner, never later). */
  readonly remembered: number;
  /** A stored head opened and its MAC checked: null when it does not hold. */
  readonly open: (stream: string, found: Snapshot) => S | null;
  /** Reads, in as few reads as it can, the snapshot parts folding these events into `state` looks into. */
  readonly readParts: (state: S, events: readonly Ev[]) => Promise<void>;
  /** What a snapshot of the state an append left holds: taken at once, under the stream's lock; packed and written after the answer. */
  readonly take: (stream: string, state: S) => Taken;
  readonly pack: (taken: Taken, stream: string, revision: number, written: WrittenParts) => { readonly head: string; readonly parts: readonly PackedPart[] };
  /**
   * How a state that named a part that is gone is forgotten (default: the cache drops it, the
   * next load reads the newest snapshot; the second time, the stream's log alone).
   */
  readonly forget?: (stream: string) => void;
  /** Whether the aggregate set the stream's snapshot aside for its next load (asked once a load): then the log is folded whole. */
  readonly replaying?: (stream: string) => boolean;
  /** Hears a snapshot write that failed (a lost snapshot costs a replay, never a decision). */
  readonly onError?: (error: unknown) => void;
}

/** An aggregate as its commands load it: its decider, its cache, its codec, its snapshot policy. */
export interface AggregateDeclaration<Ev, S, Taken> {
  readonly store: EventStore;
  readonly decider: Pick<Aggregate<unknown, Ev, S>, 'evolve' | 'fold'>;
  readonly cache: StateCache<S>;
  /** A stream's codec (default: the registry's). */
  readonly codec?: (stream: string) => Codec<Ev>;
  readonly snapshots?: SnapshotPolicy<Ev, S, Taken>;
}

export interface AggregateLoader<Ev, S> {
  /**
   * For `handle` and `inspect`, which load a state from the cache, else from this, else from the
   * stream's first event, and catch it up: a state's snapshot and the events after it, how a
   * catch-up reads the parts it looks into, and when an append leaves a snapshot. Empty without snapshots.
   */
  readonly loading: Pick<HandlerOptions<Ev, S>, 'snapshot' | 'parts' | 'appended'>;
  /** Runs a command or a look again when a state it started from held a snapshot part not read yet, or named one that is gone. */
  readonly retry: <T>(stream: string, work: () => Promise<T>) => Promise<T>;
  /** Pure work on a state that may hold parts not read yet: the parts it meets are read and it runs again. */
  readonly pure: <T>(work: () => T) => Promise<T>;
  /** How many states not cached were loaded from the snapshot store (or found none there). */
  readonly loads: () => number;
}

/**
 * One loader for every snapshotted aggregate (a scope's records, a job, an agent's records):
 * cache, then snapshot and the events after it (each MAC-checked by the store), then the log.
 */
export const aggregateLoader = <Ev, S, Taken>(d: AggregateDeclaration<Ev, S, Taken>): AggregateLoader<Ev, S> => {
  const policy = d.snapshots;
  /** Streams whose next load folds the whole log: a part their snapshot named was not as named, twice. */
  const replayWhole = new Set<string>();
  const pure = <T>(work: () => T): Promise<T> => withParts(policy?.store, work);
  const retry = snapshotPartsRetry(policy?.store, policy?.forget ?? ((stream) => d.cache.delete(stream)), replayWhole);
  let loads = 0;
  if (!policy) return { loading: {}, retry, pure, loads: () => loads };

  const codec = d.codec ?? ((stream: string) => registryCodec<Ev>(stream));
  const parts = { read: policy.readParts, evolve: pure };
  const cadence = snapshotCadence(policy.every, policy.remembered);
  /** The snapshot parts this instance wrote: a part unchanged since is named again, not written again. */
  const written: WrittenParts = new WeakMap();

  /** A snapshot's head caught up here with the events after it, reading the parts they look into first. */
  const fromSnapshot = async (stream: string): Promise<{ at: number; folded: Folded<S> | null }> => {
    const found = await policy.store.load(stream);
    const state = found ? policy.open(stream, found) : null;
    if (!found || state === null) return { at: -1, folded: null };
    return { at: found.revision, folded: await catchUp<Ev, S>(d.store, stream, d.decider, codec(stream), { state, revision: found.revision }, parts) };
  };

  return {
    loading: {
      snapshot: async (stream) => {
        loads++;
        if (policy.replaying?.(stream)) return null;
        return headOrReplay(stream, cadence, replayWhole, () => fromSnapshot(stream));
      },
      // A state read from a snapshot, caught up behind other writers: the parts its events look into are read first.
      parts,
      appended: (stream, folded) => {
        const revision = folded.revision as number;
        if (!cadence.due(stream, revision)) return;
        const taken = policy.take(stream, folded.state);
        writeLater(() => writeSnapshot(policy.store, stream, revision, policy.pack(taken, stream, revision, written), written), policy.onError);
      },
    },
    retry,
    pure,
    loads: () => loads,
  };
};
