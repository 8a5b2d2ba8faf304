/**
 * Which records and versions a read may return, whatever it asks (SPEC §4 "Start-up reads",
 * §7 "Ends"). Queries apply these to rows and, where they filter in SQL, keep a twin clause
 * next to the call.
 */
export interface VersionFacts {
  readonly state: string;
  readonly closed: boolean;
  readonly ends_at: number;
  readonly subject_kind: 'work' | 'person';
}

/** Live: not deleted, not closed, not past its end. */
export const liveAt = (v: Pick<VersionFacts, 'state' | 'closed' | 'ends_at'>, now: number) => v.state !== 'deleted' && !v.closed && v.ends_at > now;

/**
 * A person record is deleted at its end: from that instant no read returns any version of it,
 * whether or not retention has removed it yet. `newest` is the record's newest version, whose
 * end is the record's.
 */
export const personRecordGone = (newest: Pick<VersionFacts, 'subject_kind' | 'ends_at'>, now: number) =>
  newest.subject_kind === 'person' && newest.ends_at <= now;

/**
 * Whether a read may show this version of a record whose newest version is `newest`. A
 * start-up ticket sees only live versions of live records, so what a job starts with is in
 * force for its purpose; an older version past its own end counts as ended.
 */
export const mayShowVersion = (version: VersionFacts, newest: VersionFacts, startup: boolean, now: number) =>
  !personRecordGone(newest, now) && (!startup || (liveAt(newest, now) && liveAt(version, now)));
