import * as E from 'fp-ts/lib/Either.js';
import type { EventOf } from '../events/schema.ts';
import type { RecordEvent } from '../records/events.ts';
import type { RecordRemoved, RetentionEvent } from '../retention/events.ts';
import type { Decider } from '../shared/decider.ts';
import type { StreamAt } from '../ports/event-store.ts';

type Removed = EventOf<typeof RecordRemoved>;

/** What erasure needs of a scope stream: which keys are there to remove. */
export interface ErasureScopeState {
  readonly live: ReadonlySet<string>;
}

/** Erase these records of one scope (tenant, plugin, scope) for a data subject (SPEC §7). */
export interface EraseRecords {
  readonly tenant: string;
  readonly plugin: string;
  readonly scope: string;
  readonly keys: readonly string[];
  readonly now: number;
  /** Where the tenant's stream stood when these keys were judged not held (the append's condition). */
  readonly holds_at: StreamAt;
}

export const evolveErasureScope = (s: ErasureScopeState, e: RecordEvent | RetentionEvent): ErasureScopeState => {
  if (e.type === 'RecordVersionWritten' && !s.live.has(e.data.key)) return { live: new Set(s.live).add(e.data.key) };
  if (e.type === 'RecordRemoved' && s.live.has(e.data.key)) {
    const live = new Set(s.live);
    live.delete(e.data.key);
    return { live };
  }
  return s;
};

/**
 * A record the read model nominated is removed only if the scope still holds it, so a
 * retried erasure (or one racing retention) removes nothing twice.
 */
export const decideErasure = (c: EraseRecords, s: ErasureScopeState): E.Either<never, readonly Removed[]> =>
  E.right(
    [...new Set(c.keys)]
      .filter((key) => s.live.has(key))
      .map(
        (key) => ({ type: 'RecordRemoved', data: { tenant: c.tenant, plugin: c.plugin, scope: c.scope, key, reason: 'erasure', removed_ms: c.now } }) as const,
      ),
  );

export const erasureDecider: Decider<EraseRecords, RecordEvent | RetentionEvent, ErasureScopeState> = {
  initialState: () => ({ live: new Set() }),
  evolve: evolveErasureScope,
  decide: decideErasure,
};
