import type { Either } from 'fp-ts/lib/Either.js';
import type { AdmissionGuard } from './admission-guard.ts';
import type { AppendRow } from './append-rows.ts';
import type { AuditLine } from '../audit/lines.ts';

/**
 * The event-store port (SPEC §10). Revisions are per stream and 0-based (the first event of
 * a stream is revision 0); positions are global, start at 1 and only grow. A position of 0
 * means "before the first event".
 */
export type ExpectedRevision = number | 'no_stream' | 'stream_exists' | 'any';

/**
 * The type an authenticated store reads an event back as when it fails its MAC or leaves a
 * hole in its stream's revisions: no codec knows it, so nothing folds it. Its data says where
 * and why (`TamperedEventData`).
 */
export const TAMPERED_EVENT = '$tampered';
export interface TamperedEventData {
  readonly stream: string;
  readonly revision: number;
  readonly original_type: string;
  readonly reason: string;
}

/**
 * Thrown where a fold meets a tampered event: nothing may be decided from a log that does not
 * verify. The handler turns it into a refusal; anywhere else it reaches the edge as one.
 */
export class TamperedLog extends Error {
  constructor(readonly detail: TamperedEventData) {
    super(`stream ${detail.stream} revision ${detail.revision}: ${detail.reason}`);
  }
}

/** Throws `TamperedLog` for an event the authenticated store marked; a no-op otherwise. */
export const assertUntampered = (r: { readonly type: string; readonly data: unknown }): void => {
  if (r.type === TAMPERED_EVENT) throw new TamperedLog(r.data as TamperedEventData);
};

export interface EventMetadata {
  readonly tenant: string;
  readonly causation_id: string | null;
  readonly correlation_id: string | null;
  /** The event's MAC, set by the authenticated store on append (see adapters/eventstore/authenticated.ts). */
  readonly mac?: string;
}

export interface NewEvent {
  readonly event_id: string;
  readonly type: string;
  readonly schema_version: number;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

export interface RecordedEvent extends NewEvent {
  readonly stream: string;
  readonly revision: number;
  readonly position: number;
  /** ms since epoch, taken by the store when the event was appended. */
  readonly recorded_at: number;
}

export interface Appended {
  /** The stream's revision after the append: pass it as the next expected revision. */
  readonly nextExpectedRevision: number;
  /** Global position of the last event appended. */
  readonly position: number;
  /** The guard the append carried was counted with it (its request's later appends go without it). */
  readonly guardCounted?: boolean;
}

export interface WrongExpectedRevision {
  readonly kind: 'wrong_expected_revision';
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly actual: number | 'no_stream';
  /**
   * The guard the append carried was counted although the append conflicted (its request is
   * admitted; decided again, its append goes without the guard). Absent: it was not counted.
   */
  readonly guardCounted?: boolean;
}

/** A stream and the revision a decision read it at. */
export interface StreamAt {
  readonly stream: string;
  readonly revision: number | 'no_stream';
}

/**
 * What an append was decided on besides its own stream (a dynamic consistency boundary, as
 * in DCB): a removal decided against a tenant's legal holds commits only while the holds it
 * read still stand.
 * - `unmoved`: the append commits only if each of these streams is still at its revision when
 *   it commits; otherwise it writes nothing and answers a wrong expected revision naming that
 *   stream (the caller decides again).
 * - `watched`: this append moves a stream that others append on the condition of. It never
 *   commits between such an append's check and its commit: the two are ordered, in positions
 *   as in commits, on every instance.
 */
export interface AppendConditions {
  readonly unmoved?: readonly StreamAt[];
  readonly watched?: boolean;
}

/**
 * Everything that commits with an append's events, and only with them: one value, built by
 * the command's caller and passed to the store (nothing rides in an async context).
 */
export interface AppendWith {
  readonly conditions?: AppendConditions;
  /** Key rows written or locked in the append's transaction (a store that has no such rows ignores them). */
  readonly rows?: readonly AppendRow[];
  /**
   * The cached admission of the request this append belongs to, until an answer said it was
   * counted (`guardCounted`): checked and counted in the append's transaction (an append with
   * conditions never carries it). A store that cannot check it refuses it (`GuardFailed`).
   */
  readonly guard?: AdmissionGuard | null;
  /**
   * The newest version of each record (`recordRef(plugin, scope, key)`) a removal among the
   * events takes, as the decision read it: the removal's audit line names it.
   */
  readonly newest?: ReadonlyMap<string, number>;
  /**
   * The audit lines of the events (built once, by `auditLinesStore`): written with them, in
   * their transaction, each given the next place in its tenant's log. A store without an
   * audit log refuses a unit that has some.
   */
  readonly audit?: readonly AuditLine[];
}

/** An audit line as stored: its tenant, place and text (the bytes hashed as its leaf). */
export interface StoredAuditLine {
  readonly tenant: string;
  readonly seq: number;
  readonly at: number;
  readonly line: string;
}

/** One append as a value: its stream, its events, the revision it was decided on and what commits with it. */
export interface AppendUnit extends AppendWith {
  readonly stream: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
}

export type AppendResult = Either<WrongExpectedRevision, Appended>;

export interface ReadOptions {
  readonly limit?: number;
}

export interface Subscription {
  close(): Promise<void>;
}

export type EventHandler = (event: RecordedEvent) => Promise<void> | void;

/** A stream's revision, and a mark that changes whenever one of the asked-for events is rewritten in place. */
export interface StreamMarks {
  readonly revision: number;
  readonly marks: string;
}

export interface EventStore {
  readonly name: string;
  append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision, options?: AppendWith): Promise<AppendResult>;
  /**
   * Successive appends to one stream, submitted together: each expects the revision the one
   * before it leaves, and commits only if the one before it did (a unit after one that failed
   * answers a wrong expected revision and writes nothing). A store that can (PostgreSQL) makes
   * them in one statement; one answer per unit, in order, each settled after its commit.
   */
  appendChain(units: readonly AppendUnit[]): readonly Promise<AppendResult>[];
  /** The stream's events in revision order from `fromRevision` (default 0); [] for a stream that does not exist. */
  readStream(stream: string, fromRevision?: number): Promise<readonly RecordedEvent[]>;
  /** Committed events with position > `after`, in position order, none ever skipped. */
  readAll(after: number, options?: ReadOptions): Promise<readonly RecordedEvent[]>;
  /** A tenant's stored audit lines from place `from` on, in order (at most `limit`). */
  readAuditLines?(tenant: string, from: number, limit?: number): Promise<readonly StoredAuditLine[]>;
  /** Calls `handler` once per event after `after`, in order, now and as events commit. */
  subscribe(after: number, handler: EventHandler): Subscription;
  /** The position of the newest event every reader can see. */
  headPosition(): Promise<number>;
  /**
   * The newest position committed, readable or not yet: a store whose readers stop at the
   * oldest running transaction (PostgreSQL) may hold committed events back from `headPosition`
   * while a transaction elsewhere in the cluster is open. Absent: the same as `headPosition`.
   */
  committedHead?(): Promise<number>;
  /**
   * Offered by a store whose written events can be edited in place (a SQL table): marks for
   * the given events of a stream, so a reader caching them sees an edit. A store whose events
   * never change once written (EventStoreDB, memory) has none: a stream that did not grow did not change.
   */
  marks?(stream: string, revisions: readonly number[]): Promise<StreamMarks>;
  /**
   * Runs `listener` whenever new events may have committed (a hint; readers still read),
   * with the newest committed position when the store knows it: a reader that cannot see it
   * yet (a transaction still open elsewhere) knows to look again soon.
   */
  onAppend(listener: (position?: number) => void): () => void;
  close(): Promise<void>;
}
