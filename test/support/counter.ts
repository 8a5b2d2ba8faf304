import * as E from 'fp-ts/lib/Either.js';
import type { Aggregate, Codec } from '../../commands/handle.ts';
import type { DomainEvent } from '../../domain/events/registry.ts';
import { refusal, type Refusal } from '../../domain/shared/refusal.ts';

/**
 * A capped counter for the command path's tests: each `Add` is admitted once, until `cap`
 * are, and its event records the count it was decided on, so a test reads from the log
 * exactly which state each command was decided on.
 */
export interface Add {
  readonly id: number;
  readonly cap: number;
  /** Refused whatever the state (a command that is wrong in itself). */
  readonly invalid?: boolean;
}
/** What the counter writes: the command's id and the count it was decided on. */
export interface Added {
  readonly id: number;
  readonly seen: number;
}
export interface Count {
  n: number;
  readonly ids: Set<number>;
}

/** As a registered event, so the one envelope takes it. */
export const added = (a: Added): DomainEvent => ({
  type: 'LabelsJoined',
  data: { tenant: 't', job: 'j', run: 0, call: String(a.id), labels: [], joined_ms: a.seen },
});
export const fromEvent = (data: unknown): Added => {
  const d = data as { call: string; joined_ms: number };
  return { id: Number(d.call), seen: d.joined_ms };
};

export const counter: Aggregate<Add, Added, Count> = {
  initialState: () => ({ n: 0, ids: new Set() }),
  // In place, as the large deciders' states are: a batch's state is evolved before it commits.
  evolve: (s, e) => {
    s.n++;
    s.ids.add(e.id);
    return s;
  },
  decide: (c, s): E.Either<Refusal, readonly Added[]> => {
    if (c.invalid) return E.left(refusal('invalid', { field: 'id' }));
    if (s.ids.has(c.id)) return E.right([]);
    if (s.n >= c.cap) return E.left(refusal('full', { limit: c.cap }));
    return E.right([{ id: c.id, seen: s.n }]);
  },
};

/** A copy that stays as it was while the counter moves on (for `HandlerOptions.copy`). */
export const copyCount = (s: Count): Count => ({ n: s.n, ids: new Set(s.ids) });

export const codec: Codec<Added> = { read: (r) => fromEvent(r.data), write: (events) => events.map(added) };

export const cause = { tenant: 't', causation: 'c', correlation: null };
