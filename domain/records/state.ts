import type { RecordVersionWrittenData } from './events.ts';
import { liveAt } from './reads.ts';
import type { EventOf } from '../events/schema.ts';
import type { RecordRemoved, RenewalRequested } from '../retention/events.ts';

/** A version as the decider sees it: the digest opened, the body left sealed (it never needs it). */
export type OpenedVersion = RecordVersionWrittenData & { readonly dedupe_digest: string | null };
export type OpenedRecordEvent = { readonly type: 'RecordVersionWritten'; readonly data: OpenedVersion };
/** Everything a scope stream holds, as its decider folds it. */
export type ScopeEvent = OpenedRecordEvent | EventOf<typeof RecordRemoved> | EventOf<typeof RenewalRequested>;

export interface VersionMeta {
  readonly version: number;
  readonly purpose: string;
  readonly subject_kind: 'work' | 'person';
  readonly closed: boolean;
  readonly state: string;
  readonly ends_at: number;
  readonly body_bytes: number;
  readonly dedupe_digest: string | null;
}

export interface RecordMeta {
  readonly key: string;
  readonly versions: VersionMeta[];
  everPerson: boolean;
  /** The version whose owner was last asked to renew it (SPEC §7: once per version). */
  renewalAskedFor: number | null;
}

/**
 * The state of one scope stream (tenant, plugin, scope): every rule that must be exact under
 * concurrency — stale, dedupe, caps, idempotency — is decided against it. It is large (up to
 * 20,000 live records), so `evolve` updates it in place and returns it: a handler folds a
 * fresh state and never keeps an older one.
 */
export interface ScopeState {
  readonly records: Map<string, RecordMeta>;
  readonly requests: Map<string, { key: string; version: number }>;
  /** Records that count under the caps, and the bytes of their newest bodies. */
  counted: number;
  bytes: number;
}

export const initialScopeState = (): ScopeState => ({ records: new Map(), requests: new Map(), counted: 0, bytes: 0 });

export const countsUnderCaps = (v: VersionMeta | undefined) => v !== undefined && v.state !== 'deleted';
export const isLive = (v: VersionMeta | undefined, now: number) => v !== undefined && liveAt(v, now);
export const newest = (r: RecordMeta | undefined) => r?.versions.at(-1);

export const evolveScope = (s: ScopeState, event: ScopeEvent): ScopeState => {
  if (event.type === 'RenewalRequested') {
    const asked = s.records.get(event.data.key);
    if (asked) asked.renewalAskedFor = event.data.version;
    return s;
  }
  if (event.type === 'RecordRemoved') {
    // Gone from every model: it counts no more, its digest is free, its key may start again.
    const gone = newest(s.records.get(event.data.key));
    if (countsUnderCaps(gone)) {
      s.counted -= 1;
      s.bytes -= gone!.body_bytes;
    }
    s.records.delete(event.data.key);
    return s;
  }
  const d = event.data;
  const record = s.records.get(d.key) ?? { key: d.key, versions: [], everPerson: false, renewalAskedFor: null };
  const before = newest(record);
  if (countsUnderCaps(before)) {
    s.counted -= 1;
    s.bytes -= before!.body_bytes;
  }
  const v: VersionMeta = {
    version: d.version,
    purpose: d.purpose,
    subject_kind: d.subject_kind,
    closed: d.closed,
    state: d.state,
    ends_at: d.ends_at,
    body_bytes: d.body_bytes,
    dedupe_digest: d.dedupe_digest,
  };
  record.versions.push(v);
  record.everPerson ||= d.subject_kind === 'person';
  if (countsUnderCaps(v)) {
    s.counted += 1;
    s.bytes += v.body_bytes;
  }
  s.records.set(d.key, record);
  s.requests.set(d.request_key, { key: d.key, version: d.version });
  return s;
};
