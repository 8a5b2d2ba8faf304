import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { envelopeMacs } from '../../../adapters/keys/envelope-keys.ts';
import { aggregateLoader, type SnapshotPolicy } from '../../../commands/aggregate-loader.ts';
import { handle, inspect, stateCache, type Aggregate, type HandlerOptions } from '../../../commands/handle.ts';
import type { AuditorKeyEvent } from '../../../domain/auditors/keys.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { Snapshot, SnapshotStore } from '../../../domain/ports/snapshots.ts';
import { openSnapshot, sealSnapshot } from '../../../domain/shared/sealed-snapshot.ts';
import { SnapshotPartsGone } from '../../../queries/job-parts.ts';

/** A counter over a released event type (the amount added rides in `issued_ms`): the smallest aggregate a snapshot can hold. */
type Added = AuditorKeyEvent;
interface Total {
  readonly total: number;
  readonly events: number;
}
const counter: Aggregate<number, Added, Total> = {
  initialState: () => ({ total: 0, events: 0 }),
  evolve: (s, e) => ({ total: s.total + e.data.issued_ms, events: s.events + 1 }),
  decide: (n) => E.right([{ type: 'AuditorKeyIssued', data: { tenant: 'acme', id: `k${n}`, key_sha256: '00', issued_ms: n } }]),
};

/** Snapshot rows kept in this process (newest kept), each save heard by `saved`. */
const snapshotRows = () => {
  const rows = new Map<string, Snapshot>();
  const waiting: (() => void)[] = [];
  const keep = (stream: string, s: Snapshot) => {
    if ((rows.get(stream)?.revision ?? -1) <= s.revision) rows.set(stream, s);
    waiting.splice(0).forEach((w) => w());
  };
  const store: SnapshotStore = {
    load: async (stream) => rows.get(stream) ?? null,
    save: async (stream, s) => keep(stream, s),
    loadMany: async (streams) => new Map(streams.flatMap((k) => (rows.has(k) ? [[k, rows.get(k)!] as const] : []))),
    saveMany: async (list) => list.forEach(([k, s]) => keep(k, s)),
  };
  return { store, rows, saved: () => new Promise<void>((resolve) => waiting.push(resolve)) };
};

/** An event store that notes the revision each read of a stream starts from. */
const watched = () => {
  const inner = memoryEventStore();
  const reads: number[] = [];
  const store: EventStore = { ...inner, readStream: (stream, from) => (reads.push(from ?? 0), inner.readStream(stream, from)) };
  return { store, reads };
};

const STREAM = 'counter:acme:c1';
const mac = envelopeMacs(randomBytes(32))('acme');

const policy = (snapshots: SnapshotStore, over: Partial<SnapshotPolicy<Added, Total, Total>> = {}): SnapshotPolicy<Added, Total, Total> => ({
  store: snapshots,
  every: 5,
  remembered: 100,
  open: (stream, found) => {
    const text = openSnapshot(found.state, 'counter', '1', stream, found.revision, mac);
    return text === null ? null : (JSON.parse(text) as Total);
  },
  readParts: async () => undefined,
  take: (_, state) => state,
  pack: (taken, stream, revision) => ({ head: sealSnapshot('counter', '1', JSON.stringify(taken), stream, revision, mac), parts: [] }),
  ...over,
});

/** One instance's command path for the counter: its own cache and loader. */
const instance = (store: EventStore, snapshots?: SnapshotPolicy<Added, Total, Total>) => {
  const cache = stateCache<Total>(10);
  const loader = aggregateLoader({ store, decider: counter, cache, ...(snapshots ? { snapshots } : {}) });
  const options: HandlerOptions<Added, Total> = { cache, ...loader.loading };
  return {
    loader,
    add: async (n: number) => {
      const done = await handle(store, STREAM, counter, n, { tenant: 'acme' }, options);
      if (E.isLeft(done)) throw new Error(JSON.stringify(done.left));
    },
    state: () => loader.retry(STREAM, () => inspect(store, STREAM, counter, (s) => s, options)),
  };
};

describe('one loader for every aggregate: cache, then snapshot and the events after it, then the log', () => {
  it('an aggregate is folded from its snapshot and the events after it', async () => {
    const { store, reads } = watched();
    const snaps = snapshotRows();
    const warm = instance(store, policy(snaps.store));
    const saved = snaps.saved();
    for (let n = 1; n <= 7; n++) await warm.add(n);
    await saved;
    expect(snaps.rows.get(STREAM)?.revision).toBe(4);

    const cold = instance(store, policy(snaps.store));
    reads.length = 0;
    expect(await cold.state()).toEqual({ total: 28, events: 7 });
    // The events after the snapshot, then the catch-up that finds nothing newer: never the stream's first events.
    expect(reads).toEqual([5, 7]);
    expect(cold.loader.loads()).toBe(1);
  });

  it('a snapshot is taken each time an append leaves its stream `every` events past the last one this instance took', async () => {
    const { store } = watched();
    const snaps = snapshotRows();
    const taken: number[] = [];
    const warm = instance(
      store,
      policy(snaps.store, {
        take: (_, state) => {
          taken.push(state.events - 1);
          return state;
        },
      }),
    );
    for (let n = 1; n <= 12; n++) await warm.add(n);
    expect(taken).toEqual([4, 9]);
  });

  it('a snapshot that fails its MAC is not used: the stream is folded whole', async () => {
    const { store, reads } = watched();
    const snaps = snapshotRows();
    const warm = instance(store, policy(snaps.store));
    const saved = snaps.saved();
    for (let n = 1; n <= 6; n++) await warm.add(n);
    await saved;
    // The row edited to claim a larger total, its MAC left as it was.
    const row = snaps.rows.get(STREAM)!;
    snaps.rows.set(STREAM, { ...row, state: row.state.replace('"total":15', '"total":1000') });

    const cold = instance(store, policy(snaps.store));
    reads.length = 0;
    expect(await cold.state()).toEqual({ total: 21, events: 6 });
    expect(reads).toEqual([0]);
  });

  it('a snapshot whose parts are gone is read once more (a newer one may have rewritten them), then the stream is folded whole', async () => {
    const { store, reads } = watched();
    const snaps = snapshotRows();
    const warm = instance(store, policy(snaps.store));
    const saved = snaps.saved();
    for (let n = 1; n <= 6; n++) await warm.add(n);
    await saved;

    const gone = policy(snaps.store, {
      // Every state read from the snapshot names a part that is gone; a state folded from the log names none.
      readParts: async (state) => {
        if (state.events > 0) throw new SnapshotPartsGone(`${STREAM}#records.0`);
      },
    });
    const cold = instance(store, gone);
    reads.length = 0;
    expect(await cold.state()).toEqual({ total: 21, events: 6 });
    expect(reads).toEqual([5, 5, 0]);
  });

  it('without a snapshot policy a state not cached is folded from its first event, and no snapshot is taken', async () => {
    const { store, reads } = watched();
    const plain = instance(store);
    for (let n = 1; n <= 6; n++) await plain.add(n);
    const cold = instance(store);
    reads.length = 0;
    expect(await cold.state()).toEqual({ total: 21, events: 6 });
    expect(reads).toEqual([0]);
    expect(cold.loader.loads()).toBe(0);
  });
});
