import type { EventHandler, EventStore, Subscription } from '../../domain/ports/event-store.ts';
import { wakeablePause } from '../../domain/shared/wakeable-pause.ts';

export interface PollingOptions {
  /** How long to sleep when caught up and no append was signalled. */
  readonly pollMs?: number;
  readonly batchSize?: number;
  readonly onError?: (error: unknown) => void;
}

/**
 * A catch-up subscription built only on `readAll` and the append hint, so every adapter
 * shares one delivery rule: in position order, each event once, nothing skipped. Gaps are
 * the store's business (readAll never returns past an event that may still commit).
 */
export const pollingSubscription = (
  store: Pick<EventStore, 'readAll' | 'onAppend'>,
  after: number,
  handler: EventHandler,
  { pollMs = 200, batchSize = 500, onError }: PollingOptions = {},
): Subscription => {
  let closed = false;
  let signalled = false;
  const sleeper = wakeablePause();
  let failure: unknown = null;
  const off = store.onAppend(() => {
    signalled = true;
    sleeper.wake();
  });
  const pause = () => sleeper.pause(pollMs);

  let position = after;
  const loop = (async () => {
    while (!closed) {
      signalled = false;
      let batch;
      try {
        batch = await store.readAll(position, { limit: batchSize });
      } catch (error) {
        if (closed) break;
        onError?.(error);
        await pause();
        continue;
      }
      for (const event of batch) {
        if (closed) break;
        try {
          await handler(event);
        } catch (error) {
          // A handler that fails must not be skipped past: stop here, report, and let the
          // owner decide (close() rejects with the failure).
          failure = error;
          closed = true;
          onError?.(error);
          break;
        }
        position = event.position;
      }
      if (!closed && batch.length < batchSize && !signalled) await pause();
    }
  })();

  return {
    async close() {
      closed = true;
      sleeper.wake();
      off();
      await loop;
      if (failure) throw failure;
    },
  };
};
