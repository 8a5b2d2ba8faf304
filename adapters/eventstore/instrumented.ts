import { performance } from 'node:perf_hooks';
import * as E from 'fp-ts/lib/Either.js';
import type { EventStore } from '../../domain/ports/event-store.ts';
import type { CustodianMetrics } from '../metrics/registry.ts';

/**
 * The store, counting what it appends (by type) and timing each append. Everything else is
 * the inner store's own, optional methods (`committedHead`, `marks`, a PostgreSQL store's
 * `guardAlone`) included: the spread keeps them, and the result has the inner store's type.
 */
export const instrumentedEventStore = <S extends EventStore>(inner: S, metrics: Pick<CustodianMetrics, 'eventsAppended' | 'appendSeconds'>): S => ({
  ...inner,
  async append(stream, events, expected, options) {
    const started = performance.now();
    const result = await inner.append(stream, events, expected, options);
    metrics.appendSeconds.observe((performance.now() - started) / 1000);
    // A refused append (wrong expected revision) wrote nothing, so it counts no event.
    if (E.isRight(result)) for (const e of events) metrics.eventsAppended.inc({ type: e.type });
    return result;
  },
  appendChain(units) {
    const started = performance.now();
    return inner.appendChain(units).map(async (answer, i) => {
      const result = await answer;
      metrics.appendSeconds.observe((performance.now() - started) / 1000);
      if (E.isRight(result)) for (const e of units[i]!.events) metrics.eventsAppended.inc({ type: e.type });
      return result;
    });
  },
});
