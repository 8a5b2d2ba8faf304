import * as E from 'fp-ts/lib/Either.js';
import { expect } from 'vitest';
import { fold, type Decider } from '../../domain/shared/decider.ts';
import type { Refusal } from '../../domain/shared/refusal.ts';

/**
 * Given/when/then for deciders (after Emmett's DeciderSpecification): the history is folded
 * from the decider's initial state, the command decided once, and `then` states what the
 * decision must be — the events (an array, compared with toEqual, so asymmetric matchers
 * work) or the refusal (any other value: a refusal object or a matcher such as
 * `expect.objectContaining({ error: 'scope' })`).
 *
 *   const { given } = specify(jobDecider);
 *   given([started]).when(mint()).then([...]);
 *   given([]).when(mint()).then({ error: 'not_found', what: 'job' });
 *   const minted = given([started]).when(mint()).accepted();   // the events, for the next given
 *
 * Do not return a `when(…)` from an async test: it has a `then` method, so it would be awaited.
 */
export interface Decided<Ev, S> {
  /** The decision as the decider returned it. */
  readonly decision: E.Either<Refusal, readonly Ev[]>;
  /** The state the command was decided on. */
  readonly state: S;
  then(expected: readonly Ev[] | Refusal | object): void;
  /** Asserts nothing was written (an accepted no-op, such as a retried request). */
  thenNothing(): void;
  /** Asserts the command was accepted and gives its events. */
  accepted(): Ev[];
  /** Asserts the command was refused and gives the refusal. */
  refused(): Refusal;
}

const describeDecision = (d: E.Either<Refusal, readonly unknown[]>) =>
  E.isLeft(d) ? `refused ${JSON.stringify(d.left)}` : `accepted ${JSON.stringify(d.right)}`;

export const specify = <C, Ev, S>(decider: Decider<C, Ev, S>) => ({
  given: (history: readonly Ev[]) => ({
    when: (command: C): Decided<Ev, S> => {
      const state = fold(decider, history);
      const decision = decider.decide(command, state);
      return {
        decision,
        state,
        then(expected) {
          expect(decision).toEqual(Array.isArray(expected) ? E.right(expected) : E.left(expected));
        },
        thenNothing() {
          expect(decision).toEqual(E.right([]));
        },
        accepted() {
          expect(E.isRight(decision), describeDecision(decision)).toBe(true);
          return E.isRight(decision) ? [...decision.right] : [];
        },
        refused() {
          expect(E.isLeft(decision), describeDecision(decision)).toBe(true);
          return E.isLeft(decision) ? decision.left : (undefined as never);
        },
      };
    },
  }),
});
