import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { handle, stateCache, type Aggregate, type Codec, type HandlerOptions } from '../../../commands/handle.ts';
import { streamQueues } from '../../../commands/stream-queue.ts';
import type { DomainEvent } from '../../../domain/events/registry.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { Refusal } from '../../../domain/shared/refusal.ts';

/**
 * Another instance that keeps writing a stream can outrun a command on it: each append of the
 * command meets a newer revision, and the command is decided again. That goes on only for a
 * bounded time; then the command is refused `unavailable` (retry the same request), never
 * thrown as an error (a 500), and nothing of it is in the log.
 */
interface Note {
  readonly by: string;
}
const note = (n: Note): DomainEvent => ({ type: 'LabelsJoined', data: { tenant: 't', job: 'j', run: 0, call: n.by, labels: [], joined_ms: 0 } });
const notes: Aggregate<Note, Note, { n: number }> = {
  initialState: () => ({ n: 0 }),
  evolve: (s) => ({ n: s.n + 1 }),
  decide: (c): E.Either<Refusal, readonly Note[]> => E.right([c]),
};
const codec: Codec<Note> = { read: (r) => ({ by: (r.data as { call: string }).call }), write: (events) => events.map(note) };
const cause = { tenant: 't', causation: 'c', correlation: null };

/** A store where another writer appends to the stream just before each of ours reaches it, `times` times. */
const outrunning = (inner: EventStore, times: number): EventStore => {
  let left = times;
  const other = async (stream: string) => {
    if (left-- <= 0) return;
    const { type, data } = note({ by: 'other' });
    const metadata = { tenant: 't', causation_id: 'other', correlation_id: null };
    const r = await inner.append(stream, [{ event_id: crypto.randomUUID(), type, schema_version: 1, data, metadata }], 'any');
    if (E.isLeft(r)) throw new Error('the other writer could not append');
  };
  return {
    ...inner,
    append: async (stream, events, expected, options) => {
      await other(stream);
      return inner.append(stream, events, expected, options);
    },
  };
};

describe('a command other writers keep outrunning', () => {
  it('is refused unavailable once its time is up, and nothing of it is written', async () => {
    const store = outrunning(memoryEventStore(), Number.POSITIVE_INFINITY);
    const on: HandlerOptions<Note, { n: number }, Note> = { cache: stateCache(4), codec, queues: streamQueues(), contendedForMs: 30 };
    const outcome = await handle(store, 'notes:1', notes, { by: 'us' }, cause, on);
    expect(E.isLeft(outcome) && outcome.left.error).toBe('unavailable');
    expect(E.isLeft(outcome) && String(outcome.left.reason)).toMatch(/nothing of it was written; retry the same request/);
    const written = (await store.readStream('notes:1')).map((r) => (r.data as { call: string }).call);
    expect(written.length).toBeGreaterThan(1);
    expect(written.every((by) => by === 'other')).toBe(true);
  });

  it('is written as soon as the other writer lets it through, however many times it was outrun before', async () => {
    const store = outrunning(memoryEventStore(), 120);
    const on: HandlerOptions<Note, { n: number }, Note> = { cache: stateCache(4), codec, queues: streamQueues() };
    const outcome = await handle(store, 'notes:2', notes, { by: 'us' }, cause, on);
    expect(E.isRight(outcome)).toBe(true);
    const written = (await store.readStream('notes:2')).map((r) => (r.data as { call: string }).call);
    expect(written).toEqual([...Array.from({ length: 120 }, () => 'other'), 'us']);
  });
});
