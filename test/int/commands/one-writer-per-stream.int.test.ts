import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { handle, stateCache, type HandlerOptions } from '../../../commands/handle.ts';
import { streamQueues } from '../../../commands/stream-queue.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import { cause, codec, counter, fromEvent, type Add, type Added, type Count } from '../../support/counter.ts';
import { freshDatabase } from '../../support/database.ts';

/**
 * One writer per stream: commands queued on one stream are decided in one batch, one after
 * another on the state each left, and appended together; across instances the stream's
 * revision still decides. A capped counter shows it: whatever the interleaving, exactly `cap`
 * commands are admitted, each once, and a refused command writes nothing.
 */
/** One service instance: its own queue and cache, so two meet only at the stream's revision. */
const instance = (batch: number): HandlerOptions<Added, Count, Add> => ({ cache: stateCache<Count>(16), codec, queues: streamQueues(), batch });

let stream = 0;

/** Runs every command on its instance at once; answers the outcomes and the stream as written. */
const race = async (store: EventStore, commands: readonly { add: Add; on: HandlerOptions<Added, Count, Add>; delay: number }[]) => {
  const s = `counter:${++stream}:${Date.now()}`;
  const outcomes = await Promise.all(
    commands.map(async ({ add, on, delay }) => {
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      return handle(store, s, counter, add, cause, on);
    }),
  );
  return { outcomes, written: await store.readStream(s) };
};

/** What every interleaving must come to: exactly `cap` admitted (of the valid), each once, in revision order with what each saw. */
const holdsTheCap = (cap: number, valid: number, result: Awaited<ReturnType<typeof race>>) => {
  const admitted = result.outcomes.filter((o) => E.isRight(o) && o.right.events.length > 0);
  const full = result.outcomes.filter((o) => E.isLeft(o) && o.left.error === 'full');
  expect(admitted).toHaveLength(Math.min(cap, valid));
  expect(full).toHaveLength(valid - Math.min(cap, valid));
  expect(result.written).toHaveLength(Math.min(cap, valid));
  // Each was decided on the state the ones before it left: event k saw k before it.
  expect(result.written.map((e) => fromEvent(e.data).seen)).toEqual(result.written.map((_, k) => k));
  expect(new Set(result.written.map((e) => fromEvent(e.data).id)).size).toBe(result.written.length);
};

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pools: pg.Pool[] = [];
const stores: { name: string; open: () => EventStore[] }[] = [];
let pgStores: EventStore[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  pools = [createPool(db.url, 8), createPool(db.url, 8)];
  pgStores = [await postgresEventStore(pools[0]!, {}), await postgresEventStore(pools[1]!, {})];
  const memory = memoryEventStore();
  stores.push({ name: 'memory', open: () => [memory, memory] }, { name: 'postgres', open: () => pgStores });
});
afterAll(async () => {
  for (const s of pgStores) await s.close();
  for (const p of pools) await p.end();
  await db?.drop();
});

describe.each(['memory', 'postgres'])('one writer per stream (%s)', (name) => {
  const storesOf = () => stores.find((s) => s.name === name)!.open();

  it('given 50 commands racing on one instance, when they are decided in batches, then exactly the cap is admitted, in fewer appends than commands', async () => {
    const [store] = storesOf();
    const on = instance(64);
    let appends = 0;
    const counted: EventStore = {
      ...store!,
      append: (...args) => {
        appends++;
        return store!.append(...args);
      },
      appendChain: (units) => {
        appends++;
        return store!.appendChain(units);
      },
    };
    const result = await race(
      counted,
      Array.from({ length: 50 }, (_, id) => ({ add: { id, cap: 20 }, on, delay: 0 })),
    );
    holdsTheCap(20, 50, result);
    expect(appends).toBeLessThan(20);
  });

  it('given a refused command inside a batch, then it is answered and the commands after it go on', async () => {
    const [store] = storesOf();
    const on = instance(64);
    const result = await race(
      store!,
      Array.from({ length: 12 }, (_, id) => ({ add: { id, cap: 100, invalid: id % 4 === 1 }, on, delay: 0 })),
    );
    expect(result.outcomes.map((o) => (E.isLeft(o) ? o.left.error : 'ok'))).toEqual(Array.from({ length: 12 }, (_, id) => (id % 4 === 1 ? 'invalid' : 'ok')));
    expect(result.written.map((e) => fromEvent(e.data).id)).toEqual([0, 2, 3, 4, 6, 7, 8, 10, 11]);
  });

  it('given a command repeated inside one batch, then it is written once and its repeat decides nothing', async () => {
    const [store] = storesOf();
    const on = instance(64);
    const result = await race(
      store!,
      [0, 1, 1, 2, 1].map((id) => ({ add: { id, cap: 100 }, on, delay: 0 })),
    );
    expect(result.written.map((e) => fromEvent(e.data).id)).toEqual([0, 1, 2]);
    expect(result.outcomes.map((o) => (E.isRight(o) ? o.right.events.length : -1))).toEqual([1, 1, 0, 1, 0]);
  });

  it('given random interleavings on two instances, then every batch that met the other instance is decided again and the cap holds exactly', async () => {
    const [a, b] = storesOf();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.record({ second: fc.boolean(), delay: fc.integer({ min: 0, max: 3 }), invalid: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 16 }),
        async (cap, commands, batch) => {
          const first = instance(batch);
          const second = instance(batch);
          const s = `counter:${++stream}:${Date.now()}`;
          const outcomes = await Promise.all(
            commands.map(async (c, id) => {
              if (c.delay > 0) await new Promise((r) => setTimeout(r, c.delay));
              return handle(c.second ? b! : a!, s, counter, { id, cap, invalid: c.invalid && id % 3 === 0 }, cause, c.second ? second : first);
            }),
          );
          const valid = commands.filter((c, id) => !(c.invalid && id % 3 === 0)).length;
          holdsTheCap(cap, valid, { outcomes, written: await a!.readStream(s) });
        },
      ),
      { numRuns: name === 'postgres' ? 60 : 200 },
    );
  });
});
