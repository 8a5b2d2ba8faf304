import type { EventStore } from '../domain/ports/event-store.ts';

/**
 * The log's head once everything committed before the call can be read. A reader that stops
 * at the oldest running transaction (PostgreSQL) may see a committed event only after a
 * transaction open elsewhere in the cluster ends: an answer built "up to now" waits that out
 * (bounded), so it never leaves out a write that was answered before it was asked.
 */
export const readableHead = async (store: EventStore, atLeast?: number, maxWaitMs = 10_000): Promise<number> => {
  const committed = (await store.committedHead?.()) ?? (await store.headPosition());
  const target = Math.min(atLeast ?? committed, committed);
  const deadline = Date.now() + maxWaitMs;
  for (let pause = 5; ; pause = Math.min(200, pause * 2)) {
    const head = await store.headPosition();
    if (head >= target || Date.now() > deadline) return head;
    await new Promise((r) => setTimeout(r, pause));
  }
};
