import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { appendOneByOne } from '../../../adapters/eventstore/append-chain.ts';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { envelope } from '../../../commands/envelope.ts';
import { handle, stateCache, type Folded, type HandlerOptions } from '../../../commands/handle.ts';
import { streamQueues } from '../../../commands/stream-queue.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import { added, cause, codec, copyCount, counter, fromEvent, type Add, type Added, type Count } from '../../support/counter.ts';

/**
 * With `HandlerOptions.copy`, a batch whose later append conflicts (another writer moved the
 * stream between its units) goes on from the state holding exactly what committed: the
 * committed commands are answered with it, the rest are decided again on it caught up with the
 * other writer's events, and the stream is never loaded again from its snapshot (a cold load on
 * every conflict was what made two instances on one stream outrun each other).
 */
/** A store on which another writer appends to the stream just before the second unit of the first chain it is given. */
const outrunOnce = (inner: EventStore, foreign: Added): EventStore => {
  let chains = 0;
  return {
    ...inner,
    appendChain: (units) => {
      const chain = ++chains;
      let unit = 0;
      return appendOneByOne(async (u) => {
        if (chain === 1 && ++unit === 2) await inner.append(u.stream, envelope(cause, [added(foreign)]), 'any');
        return inner.append(u.stream, u.events, u.expected, u);
      })(units);
    },
  };
};

const run = async (copy: HandlerOptions<Added, Count, Add>['copy']) => {
  const inner = memoryEventStore();
  const store = outrunOnce(inner, { id: 99, seen: -1 });
  const stream = 'counter:outrun';
  let snapshotLoads = 0;
  const on: HandlerOptions<Added, Count, Add> = {
    cache: stateCache<Count>(4),
    codec,
    queues: streamQueues(),
    batch: 64,
    snapshot: async (): Promise<Folded<Count> | null> => {
      snapshotLoads++;
      return null;
    },
    ...(copy ? { copy } : {}),
  };
  const add = (id: number) => handle(store, stream, counter, { id, cap: 100 }, cause, on);
  // The first is decided alone; the three queued behind it are decided together and appended as one chain.
  const first = add(0);
  const batch = [add(1), add(2), add(3)];
  expect(E.isRight(await first)).toBe(true);
  const answers = await Promise.all(batch);
  // Read once every command is answered: the state a committed command was answered with is
  // its own, never moved by the rounds the batch goes on with.
  const counts = answers.map((o) => (E.isRight(o) ? o.right.state.n : null));
  return { answers, counts, log: (await inner.readStream(stream)).map((e) => fromEvent(e.data)), snapshotLoads };
};

describe('a batch whose later append conflicts, with copy', () => {
  it('goes on from the state its committed appends left: answered from it, decided again on it caught up, never loaded from the snapshot again', async () => {
    const { answers, counts, log, snapshotLoads } = await run(copyCount);
    expect(answers.every(E.isRight)).toBe(true);
    // 1 committed before the other writer's 99; 2 and 3 were decided again on the four events the log then held.
    expect(log).toEqual([
      { id: 0, seen: 0 },
      { id: 1, seen: 1 },
      { id: 99, seen: -1 },
      { id: 2, seen: 3 },
      { id: 3, seen: 4 },
    ]);
    expect(counts[0], 'the answer to 1 holds 0 and 1, not the other writer’s 99 or 2').toBe(2);
    expect(snapshotLoads, 'the first load only').toBe(1);
  });
});

describe('the same batch without copy', () => {
  it('decides the same, but forgets the state and loads the stream again (the cost copy removes)', async () => {
    const { answers, log, snapshotLoads } = await run(undefined);
    expect(answers.every(E.isRight)).toBe(true);
    expect(log.map((a) => a.id)).toEqual([0, 1, 99, 2, 3]);
    expect(snapshotLoads).toBeGreaterThan(1);
  });
});
