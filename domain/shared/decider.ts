import type { Either } from 'fp-ts/lib/Either.js';
import type { Refusal } from './refusal.ts';

/**
 * The decider pattern: pure state transitions. Command handlers load events, fold them with
 * `evolve` from `initialState`, ask `decide`, and append what it returns.
 */
export interface Decider<Command, Event, State> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (command: Command, state: State) => Either<Refusal, readonly Event[]>;
}

export const fold = <E, S>(d: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>, events: readonly E[]): S => events.reduce(d.evolve, d.initialState());
