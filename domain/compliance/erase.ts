import * as E from 'fp-ts/lib/Either.js';
import type { EventOf } from '../events/schema.ts';
import type { RecordEvent } from '../records/events.ts';
import type { RecordRemoved, RetentionEvent } from '../retention/events.ts';
import type { Decider } from '../shared/decider.ts';
import type { StreamAt } from '../ports/event-store.ts';
import { recordRef } from '../audit/lines.ts';

type Removed = EventOf<typeof RecordRemoved>;

/** What erasure needs of a scope stream: which keys are there to remove, and each one's newest version (its removal's audit line names it). */
export interface ErasureScopeState {
  readonly live: ReadonlySet<string>;
  readonly newest: ReadonlyMap<string, number>;
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
  if (e.type === 'RecordVersionWritten') {
    const newest = new Map(s.newest).set(e.data.key, Math.max(e.data.version, s.newest.get(e.data.key) ?? 0));
    return { live: s.live.has(e.data.key) ? s.live : new Set(s.live).add(e.data.key), newest };
  }
  if (e.type === 'RecordRemoved' && (s.live.has(e.data.key) || s.newest.has(e.data.key))) {
    const live = new Set(s.live);
    live.delete(e.data.key);
    const newest = new Map(s.newest);
    newest.delete(e.data.key);
    return { live, newest };
  }
  return s;
};

/** The newest version of each record these removals take (keyed by `recordRef`). */
export const erasedVersions = (events: readonly (RecordEvent | RetentionEvent)[], s: ErasureScopeState): ReadonlyMap<string, number> => {
  const versions = new Map<string, number>();
  for (const e of events) {
    const v = e.type === 'RecordRemoved' ? s.newest.get(e.data.key) : undefined;
    if (e.type === 'RecordRemoved' && v !== undefined) versions.set(recordRef(e.data.plugin, e.data.scope, e.data.key), v);
  }
  return versions;
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
  initialState: () => ({ live: new Set(), newest: new Map() }),
  evolve: evolveErasureScope,
  // A whole stream in one pass: one copy of each collection, not one per event.
  fold: (s, events) => {
    const live = new Set(s.live);
    const newest = new Map(s.newest);
    for (const e of events)
      if (e.type === 'RecordVersionWritten') {
        live.add(e.data.key);
        newest.set(e.data.key, Math.max(e.data.version, newest.get(e.data.key) ?? 0));
      } else if (e.type === 'RecordRemoved') {
        live.delete(e.data.key);
        newest.delete(e.data.key);
      }
    return { live, newest };
  },
  decide: decideErasure,
};
