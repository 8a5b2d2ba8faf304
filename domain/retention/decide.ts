import * as E from 'fp-ts/lib/Either.js';
import type { Refusal } from '../shared/refusal.ts';
import type { StreamAt } from '../ports/event-store.ts';
import { DAY_MS } from '../records/rules.ts';
import { newest, type RecordMeta, type ScopeEvent, type ScopeState } from '../records/state.ts';

/**
 * A record a retention run looked at, as a (possibly lagging) read model showed it, with
 * whether a legal hold covers that version. Holds are judged outside (they need the writers'
 * job trees); everything about ends is judged here, against the scope's current state.
 */
export interface RetentionCandidate {
  readonly key: string;
  readonly version: number;
  readonly held: boolean;
}

/** Retention for one scope stream (tenant, plugin, scope), decided like any other command. */
export interface RetainScope {
  readonly tenant: string;
  readonly plugin: string;
  readonly scope: string;
  readonly retention_days: number;
  readonly candidates: readonly RetentionCandidate[];
  readonly now: number;
  /** Where the tenant's stream stood when the candidates' holds were judged (the append's condition). */
  readonly holds_at: StreamAt;
}

export type RetentionVerdict = 'person_end' | 'retention' | 'renew' | 'deferred' | 'none';

/**
 * SPEC §7 ends, for one record: a person record goes at its end; a work record's end is a
 * review date (its owner is asked once per version, unless it is closed or deleted) and it goes
 * `retention_days` after. A held record is never removed. A candidate whose version is no
 * longer the newest was read before a put that moved its end: nothing is decided on it (the
 * next run sees the new version), so that put is never undone.
 */
export const retentionVerdict = (record: RecordMeta | undefined, c: RetentionCandidate, now: number, retentionDays: number): RetentionVerdict => {
  const v = newest(record);
  if (!v || v.version !== c.version || v.ends_at > now) return 'none';
  const due = v.subject_kind === 'person' || v.ends_at + retentionDays * DAY_MS <= now;
  if (due) return c.held ? 'deferred' : v.subject_kind === 'person' ? 'person_end' : 'retention';
  if (v.state === 'deleted' || v.closed || record!.renewalAskedFor === v.version) return 'none';
  return 'renew';
};

export const retentionVerdicts = (c: RetainScope, s: ScopeState): Map<string, RetentionVerdict> =>
  new Map(c.candidates.map((candidate) => [candidate.key, retentionVerdict(s.records.get(candidate.key), candidate, c.now, c.retention_days)]));

/** The scope's retention decider: removals and renewal requests, as events on the scope stream. */
export const decideRetention = (c: RetainScope, s: ScopeState): E.Either<Refusal, readonly ScopeEvent[]> => {
  const events: ScopeEvent[] = [];
  const where = { tenant: c.tenant, plugin: c.plugin, scope: c.scope };
  for (const [key, verdict] of retentionVerdicts(c, s)) {
    if (verdict === 'person_end' || verdict === 'retention')
      events.push({ type: 'RecordRemoved', data: { ...where, key, reason: verdict, removed_ms: c.now } });
    if (verdict === 'renew') {
      const v = newest(s.records.get(key))!;
      events.push({ type: 'RenewalRequested', data: { ...where, key, version: v.version, ends_at: v.ends_at, requested_ms: c.now } });
    }
  }
  return E.right(events);
};
