import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { Decider } from '../../domain/shared/decider.ts';
import { refusal, type Refusal } from '../../domain/shared/refusal.ts';
import { specify } from '../support/decider.ts';

/** A counter that refuses to go below zero: enough to show the helper can fail. */
type Ev = { type: 'Added'; n: number };
const counter: Decider<{ add: number }, Ev, number> = {
  initialState: () => 0,
  evolve: (s, e) => s + e.n,
  decide: (c, s): E.Either<Refusal, readonly Ev[]> =>
    s + c.add < 0 ? E.left(refusal('invalid', { field: 'add', reason: 'below zero' })) : c.add === 0 ? E.right([]) : E.right([{ type: 'Added', n: c.add }]),
};
const { given } = specify(counter);

describe('given/when/then helper', () => {
  it('folds the history and passes on the decision it states', () => {
    const when = given([{ type: 'Added', n: 2 }]).when({ add: -1 });
    expect(when.state).toBe(2);
    when.then([{ type: 'Added', n: -1 }]);
    given([]).when({ add: -1 }).then({ error: 'invalid', field: 'add', reason: 'below zero' });
    given([])
      .when({ add: -1 })
      .then(expect.objectContaining({ error: 'invalid' }));
    given([]).when({ add: 0 }).thenNothing();
    expect(given([]).when({ add: 3 }).accepted()).toEqual([{ type: 'Added', n: 3 }]);
    expect(given([]).when({ add: -3 }).refused()).toMatchObject({ error: 'invalid' });
  });

  it('fails when the decision is not the one stated', () => {
    expect(() =>
      given([])
        .when({ add: 1 })
        .then([{ type: 'Added', n: 2 }]),
    ).toThrow();
    expect(() => given([]).when({ add: 1 }).then({ error: 'invalid' })).toThrow();
    expect(() => given([]).when({ add: -1 }).then([])).toThrow();
    expect(() => given([]).when({ add: 1 }).thenNothing()).toThrow();
    expect(() => given([]).when({ add: -1 }).accepted()).toThrow(/refused/);
    expect(() => given([]).when({ add: 1 }).refused()).toThrow(/accepted/);
  });
});
