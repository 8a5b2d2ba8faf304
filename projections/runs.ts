import type { Applicable } from './projection.ts';

/**
 * Applies events in log order where most of them can be written set-based: consecutive
 * events `take` accepts are gathered and written by one `flush`; any other event first
 * flushes what was gathered, then goes through `single`. The order of effects is kept.
 */
export const inRuns = async <T>(
  items: readonly Applicable[],
  take: (a: Applicable) => T | null,
  flush: (gathered: readonly T[]) => Promise<unknown>,
  single: (a: Applicable) => Promise<unknown>,
) => {
  let gathered: T[] = [];
  const flushed = async () => {
    if (gathered.length > 0) await flush(gathered);
    gathered = [];
  };
  for (const a of items) {
    const t = take(a);
    if (t !== null) gathered.push(t);
    else {
      await flushed();
      await single(a);
    }
  }
  await flushed();
};
