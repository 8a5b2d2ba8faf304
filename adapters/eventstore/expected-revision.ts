import type { ExpectedRevision } from '../../domain/ports/event-store.ts';

/** The one rule every adapter enforces: does the stream's current revision meet the expectation? */
export const meetsExpectation = (expected: ExpectedRevision, current: number | 'no_stream'): boolean => {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === 'no_stream';
    case 'stream_exists':
      return current !== 'no_stream';
    default:
      return current === expected;
  }
};
