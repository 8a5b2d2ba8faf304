import * as t from 'io-ts';
import type { StreamAt } from '../ports/event-store.ts';

/**
 * A legal hold's selector (SPEC §7): every given field must match. `tenant: true` alone holds
 * the whole tenant; `job` holds what the job tree under that job wrote.
 */
export const SelectorCodec = t.partial({
  tenant: t.literal(true),
  plugin: t.string,
  scope: t.string,
  record: t.string,
  data_subject: t.string,
  job: t.string,
});
export type Selector = t.TypeOf<typeof SelectorCodec>;

/** What a hold looks at in a record: where it is, whose it is, which jobs' trees wrote it. */
export interface HeldCandidate {
  readonly plugin: string;
  readonly scope: string;
  readonly key: string;
  readonly data_subjects: readonly string[];
  /** Every job in the envelope chains of the jobs that wrote a version of it. */
  readonly tree_jobs: readonly string[];
}

export const selects = (s: Selector, r: HeldCandidate): boolean => {
  const fields = Object.keys(s).filter((k) => k !== 'tenant');
  if (fields.length === 0) return s.tenant === true;
  return (
    (s.plugin === undefined || s.plugin === r.plugin) &&
    (s.scope === undefined || s.scope === r.scope) &&
    (s.record === undefined || s.record === r.key) &&
    (s.data_subject === undefined || r.data_subjects.includes(s.data_subject)) &&
    (s.job === undefined || r.tree_jobs.includes(s.job))
  );
};

export const isHeld = (holds: readonly Selector[], r: HeldCandidate) => holds.some((h) => selects(h, r));

/**
 * The holds in force as a decision read them, and where the tenant's stream stood then: a
 * removal decided on them is appended only while that stream has not moved (no hold placed
 * since), else decided again.
 */
export interface HoldsAt {
  readonly holds: readonly Selector[];
  readonly at: StreamAt;
}
