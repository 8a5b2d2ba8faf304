import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { appendOneByOne } from '../../../adapters/eventstore/append-chain.ts';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { handle, stateCache, type HandlerOptions } from '../../../commands/handle.ts';
import { streamQueues } from '../../../commands/stream-queue.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import { cause, codec, counter, fromEvent, type Add, type Added, type Count } from '../../support/counter.ts';

/**
 * A batch's commands are decided on a state evolved in place before any of them commits. Whatever
 * ends the batch — a conflict, a store that fails, a store that throws before it appends — the
 * state the next command is decided on holds exactly what committed: no command is refused
 * (`full`) or admitted on events that never reached the log.
 */
let streams = 0;

/** A store whose chained append fails once, the way `fail` says, before anything of the chain is written. */
const failingOnce = (inner: EventStore, fail: 'throws' | 'rejects'): EventStore => {
  let failed = false;
  return {
    ...inner,
    appendChain: (units) => {
      if (failed) return inner.appendChain(units);
      failed = true;
      const error = new Error('the store failed before it appended');
      if (fail === 'throws') throw error;
      return units.map(() => Promise.reject(error));
    },
  };
};

describe.each(['throws', 'rejects'] as const)('a batch whose chained append %s', (fail) => {
  it('leaves the cached state as the log has it: the next commands are decided on what committed, and the cap refuses only once it is reached', async () => {
    const store = failingOnce(memoryEventStore(), fail);
    const stream = `counter:${++streams}`;
    const on: HandlerOptions<Added, Count, Add> = { cache: stateCache<Count>(4), codec, queues: streamQueues(), batch: 64 };
    const add = (id: number) => handle(store, stream, counter, { id, cap: 3 }, cause, on);
    // The first is taken alone; the two queued behind it are decided together and appended as one chain, which fails.
    const first = add(0);
    const batched = [add(1), add(2)].map((p) => p.then(E.right, E.left));
    expect(E.isRight(await first)).toBe(true);
    for (const r of await Promise.all(batched)) expect(E.isLeft(r), 'the failed chain is an error to its callers').toBe(true);
    expect((await store.readStream(stream)).map((e) => fromEvent(e.data))).toEqual([{ id: 0, seen: 0 }]);

    // One committed: two more fit, each decided on the count the log holds.
    const after = [await add(4), await add(5), await add(6)];
    expect(after.map((o) => (E.isLeft(o) ? o.left.error : 'ok'))).toEqual(['ok', 'ok', 'full']);
    expect((await store.readStream(stream)).map((e) => fromEvent(e.data))).toEqual([
      { id: 0, seen: 0 },
      { id: 4, seen: 1 },
      { id: 5, seen: 2 },
    ]);
  });
});

describe('a batch whose chain commits its first unit and fails on its second', () => {
  it('answers the committed command with a state holding what committed, never the failed one’s events', async () => {
    const inner = memoryEventStore();
    let unit = 0;
    const store: EventStore = {
      ...inner,
      appendChain: appendOneByOne((u) =>
        ++unit === 2 ? Promise.reject(new Error('the store failed on this unit')) : inner.append(u.stream, u.events, u.expected, u),
      ),
    };
    const stream = `counter:${++streams}`;
    const on: HandlerOptions<Added, Count, Add> = { cache: stateCache<Count>(4), codec, queues: streamQueues(), batch: 64 };
    const add = (id: number) => handle(store, stream, counter, { id, cap: 10 }, cause, on);
    const first = add(0);
    const [one, two, three] = [add(1), add(2), add(3)].map((p) => p.then(E.right, E.left));
    expect(E.isRight(await first)).toBe(true);
    const answered = await one!;
    expect(E.isLeft(await two!)).toBe(true);
    expect(E.isRight(await three!)).toBe(true);
    // Committed: ids 0 and 1 (and 3, decided again after). The answer to 1 was given a state: it holds 0 and 1 only.
    expect((await inner.readStream(stream)).map((e) => fromEvent(e.data).id)).toEqual([0, 1, 3]);
    expect(E.isRight(answered) && E.isRight(answered.right) ? answered.right.right.state.n : null).toBe(2);
  });
});

describe('a command answered while the next batch on its stream is being decided', () => {
  it('hands its caller a state that the next batch does not move under it', async () => {
    const store = memoryEventStore();
    const stream = `counter:${++streams}`;
    const on: HandlerOptions<Added, Count, Add> = { cache: stateCache<Count>(4), codec, queues: streamQueues(), batch: 64 };
    const add = (id: number) => handle(store, stream, counter, { id, cap: 100 }, cause, on);
    // The first is decided alone; the others queue behind it and are decided (evolving the state in place) as soon as it is answered.
    const seen = add(0).then((o) => (E.isRight(o) ? o.right.state.n : -1));
    const rest = Array.from({ length: 10 }, (_, i) => add(i + 1));
    expect(await seen).toBe(1);
    await Promise.all(rest);
  });
});
