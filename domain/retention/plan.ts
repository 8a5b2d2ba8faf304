import { DAY_MS } from '../records/rules.ts';
import { isHeld, type HeldCandidate, type Selector } from './holds.ts';

export interface RetainedRecord extends HeldCandidate {
  readonly version: number;
  readonly subject_kind: 'work' | 'person';
  readonly ends_at: number;
  readonly renewal_requested_for: number | null;
}

export interface RetentionPlan {
  readonly remove: { record: RetainedRecord; reason: 'person_end' | 'retention' }[];
  readonly renew: RetainedRecord[];
  readonly deferred: RetainedRecord[];
}

/**
 * SPEC §7 ends: a person record goes at its end; a work record's end is a review date (its
 * owner is asked once per version to renew) and it goes `retention_days` after. A held record
 * is never removed: it is deferred and reported.
 */
export const retentionPlan = (records: readonly RetainedRecord[], now: number, retentionDays: number, holds: readonly Selector[]): RetentionPlan => {
  const plan: RetentionPlan = { remove: [], renew: [], deferred: [] };
  for (const r of records) {
    if (r.ends_at > now) continue;
    const reason = r.subject_kind === 'person' ? 'person_end' : r.ends_at + retentionDays * DAY_MS <= now ? 'retention' : null;
    if (reason) {
      if (isHeld(holds, r)) plan.deferred.push(r);
      else plan.remove.push({ record: r, reason });
    } else if (r.renewal_requested_for !== r.version) {
      plan.renew.push(r);
    }
  }
  return plan;
};
