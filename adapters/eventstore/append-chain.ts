import * as E from 'fp-ts/lib/Either.js';
import type { AppendResult, AppendUnit } from '../../domain/ports/event-store.ts';

/**
 * The answer of a chained unit whose predecessor did not commit: it was decided on the state
 * that predecessor would have left, so it writes nothing and is decided again. The stream is
 * not where it expected (at best where its predecessor expected it).
 */
export const brokenLink = (unit: AppendUnit, before: AppendUnit): AppendResult =>
  E.left({
    kind: 'wrong_expected_revision',
    stream: unit.stream,
    expected: unit.expected,
    actual: typeof before.expected === 'number' ? before.expected : 'no_stream',
  });

/**
 * `appendChain` for a store that appends one unit at a time: each unit after the one before
 * it has committed, none after one that did not.
 */
export const appendOneByOne =
  (append: (unit: AppendUnit) => Promise<AppendResult>) =>
  (units: readonly AppendUnit[]): readonly Promise<AppendResult>[] => {
    const answers: Promise<AppendResult>[] = [];
    units.forEach((unit, i) => {
      const before = answers[i - 1];
      answers.push(
        before === undefined
          ? append(unit)
          : before.then(
              (r) => (E.isRight(r) ? append(unit) : brokenLink(unit, units[i - 1]!)),
              () => brokenLink(unit, units[i - 1]!),
            ),
      );
    });
    return answers;
  };
