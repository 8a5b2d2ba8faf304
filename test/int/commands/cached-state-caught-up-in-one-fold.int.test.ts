import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { handle, stateCache, type Aggregate, type Codec, type HandlerOptions } from '../../../commands/handle.ts';
import { streamQueues } from '../../../commands/stream-queue.ts';
import type { DomainEvent } from '../../../domain/events/registry.ts';
import { refusal, type Refusal } from '../../../domain/shared/refusal.ts';

/**
 * A cached state behind its stream (another instance appended meanwhile) is caught up with the
 * decider's `fold` in one pass over every event it missed, never event by event (the tenant's
 * `evolve` copies its growing maps per event), and is decided on exactly as a replay would be.
 */
interface Add {
  readonly id: number;
  readonly cap: number;
}
interface Added {
  readonly id: number;
}
const added = (a: Added): DomainEvent => ({ type: 'LabelsJoined', data: { tenant: 't', job: 'j', run: 0, call: String(a.id), labels: [], joined_ms: 0 } });
const codec: Codec<Added> = { read: (r) => ({ id: Number((r.data as { call: string }).call) }), write: (events) => events.map(added) };
const cause = { tenant: 't', causation: 'c', correlation: null };

interface Ids {
  readonly ids: readonly number[];
}
const calls = { evolve: 0, fold: [] as number[] };
const ids: Aggregate<Add, Added, Ids> = {
  initialState: () => ({ ids: [] }),
  evolve: (s, e) => {
    calls.evolve++;
    return { ids: [...s.ids, e.id] };
  },
  fold: (s, events) => {
    calls.fold.push(events.length);
    return { ids: [...s.ids, ...events.map((e) => e.id)] };
  },
  decide: (c, s): E.Either<Refusal, readonly Added[]> =>
    s.ids.includes(c.id)
      ? E.left(refusal('already_exists', { id: c.id }))
      : s.ids.length >= c.cap
        ? E.left(refusal('full', { limit: c.cap }))
        : E.right([{ id: c.id }]),
};

describe('a cached state behind its stream', () => {
  it('is caught up with one fold of every event it missed, and decided on as a replay would be', async () => {
    const store = memoryEventStore();
    const stream = 'ids:1';
    const on: HandlerOptions<Added, Ids, Add> = { cache: stateCache<Ids>(4), codec, queues: streamQueues() };
    const add = (id: number, cap = 1_000) => handle(store, stream, ids, { id, cap }, cause, on);
    expect(E.isRight(await add(0))).toBe(true);

    // Another writer appends 50 events behind this instance's cache.
    const head = await store.readStream(stream);
    const others = Array.from({ length: 50 }, (_, i) => ({
      event_id: randomUUID(),
      type: 'LabelsJoined',
      schema_version: 1,
      data: added({ id: i + 1 }).data,
      metadata: { tenant: 't', causation_id: null, correlation_id: null },
    }));
    expect(E.isRight(await store.append(stream, others, head.at(-1)!.revision))).toBe(true);
    calls.evolve = 0;
    calls.fold = [];

    // The cached state is stale: its optimistic append conflicts, and the state is caught up in one fold of the 50.
    const dup = await add(7);
    expect(E.isLeft(dup) && dup.left.error).toBe('already_exists');
    expect(calls.fold).toEqual([50]);
    expect(calls.evolve).toBe(0);
    // Decided on all 51: the cap counts them.
    const full = await add(99, 51);
    expect(E.isLeft(full) && full.left.error).toBe('full');
    expect(E.isRight(await add(100, 52))).toBe(true);
    expect((await store.readStream(stream)).length).toBe(52);
  });
});
