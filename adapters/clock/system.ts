import type { Clock } from '../../domain/ports/clock.ts';

export const systemClock: Clock = { now: () => Date.now() };

/**
 * The clock behind CUSTODIAN_TEST_CLOCK=1: wall time plus an offset that only grows, so
 * tests reach ends and expiries by moving time, not by sleeping.
 */
export interface TestClock extends Clock {
  advance(ms: number): number;
}

export const testClock = (base: Clock = systemClock): TestClock => {
  let offset = 0;
  return {
    now: () => base.now() + offset,
    advance(ms) {
      offset += ms;
      return base.now() + offset;
    },
  };
};
