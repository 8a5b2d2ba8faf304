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
  /**
   * Evolves many events in one pass, exactly as `evolve` one after another would: for a
   * decider whose `evolve` copies growing maps per event, so catching a state up by k events
   * costs k, not k times the state's size.
   */
  readonly fold?: (state: State, events: readonly Event[]) => State;
}

export const fold = <E, S>(d: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>, events: readonly E[]): S => events.reduce(d.evolve, d.initialState());
