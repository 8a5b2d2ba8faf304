import type { RecordVersionWrittenData } from './events.ts';
import { liveAt } from './reads.ts';
import type { EventOf } from '../events/schema.ts';
import type { RecordRemoved, RenewalRequested } from '../retention/events.ts';
import { KeyedMap } from '../shared/keyed-map.ts';

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
  /** Its newest version: the only one any decision reads. */
  readonly latest: VersionMeta;
  readonly everPerson: boolean;
  /** The version whose owner was last asked to renew it (SPEC §7: once per version). */
  readonly renewalAskedFor: number | null;
}

/**
 * The state of one scope stream (tenant, plugin, scope): every rule that must be exact under
 * concurrency — stale, dedupe, caps, idempotency — is decided against it. It is large (up to
 * 20,000 live records), so `evolve` updates it in place and returns it: a handler folds a
 * fresh state and never keeps an older one.
 *
 * The records and the dedupe index are persistent maps (`KeyedMap`), so a snapshot takes them
 * as they are and a cold instance holds their parts as stubs, read when a put looks into them:
 * the record under its key, and the keys holding its digest. `evolve` looks up all it touches
 * before it changes anything, so a look into a part not read yet (`PartsMissing`) leaves the
 * state as it was.
 */
/** A record in the dedupe index: its key and newest version, so a duplicate is found without reading the record's part. */
export interface Holder {
  readonly key: string;
  readonly latest: VersionMeta;
}

export interface ScopeState {
  readonly records: KeyedMap<RecordMeta>;
  /** Dedupe digest → the records whose newest version holds it (with that version), in the order they took it. */
  readonly dedupe: KeyedMap<readonly Holder[]>;
  /** Request keys decided since the state's snapshot (a snapshot keeps none: the request-keys read model has them). Persistent, as the maps above. */
  readonly requests: KeyedMap<{ key: string; version: number }>;
  /** Records that count under the caps, and the bytes of their newest bodies. */
  counted: number;
  bytes: number;
}

export const initialScopeState = (): ScopeState => ({ records: new KeyedMap(), dedupe: new KeyedMap(), requests: new KeyedMap(), counted: 0, bytes: 0 });

/**
 * A copy a fold can move on from while this state stays as it was: the maps are persistent,
 * so it costs the same at 10 records and 20,000 (a batch keeps the state each append leaves,
 * and goes on from the one that committed when a later append conflicts).
 */
export const copyScope = (s: ScopeState): ScopeState => ({
  records: new KeyedMap(s.records.map),
  dedupe: new KeyedMap(s.dedupe.map),
  requests: new KeyedMap(s.requests.map),
  counted: s.counted,
  bytes: s.bytes,
});

export const countsUnderCaps = (v: VersionMeta | undefined) => v !== undefined && v.state !== 'deleted';
export const isLive = (v: VersionMeta | undefined, now: number) => v !== undefined && liveAt(v, now);
export const newest = (r: RecordMeta | undefined) => r?.latest;

/** The records holding a digest, `key` taken out. */
const without = (holders: readonly Holder[] | undefined, key: string) => (holders ?? []).filter((h) => h.key !== key);

/**
 * The scope after one event, a new state: `from` stays as it was. Its maps are persistent, so
 * the copy is three wrappers and the event's changes share everything else with `from`.
 */
export const evolveScope = (from: ScopeState, event: ScopeEvent): ScopeState => {
  const s = copyScope(from);
  if (event.type === 'RenewalRequested') {
    const asked = s.records.get(event.data.key);
    if (asked) s.records.set(asked.key, { ...asked, renewalAskedFor: event.data.version });
    return s;
  }
  if (event.type === 'RecordRemoved') {
    // Gone from every model: it counts no more, its digest is free, its key may start again.
    const gone = newest(s.records.get(event.data.key));
    const digest = gone?.dedupe_digest ?? null;
    const holders = digest === null ? undefined : s.dedupe.get(digest);
    if (!gone) return from;
    if (countsUnderCaps(gone)) {
      s.counted -= 1;
      s.bytes -= gone.body_bytes;
    }
    s.records.delete(event.data.key);
    if (digest !== null) setHolders(s, digest, without(holders, event.data.key));
    return s;
  }
  const d = event.data;
  // Every look first (each may name a part not read yet), then the changes.
  const record = s.records.get(d.key);
  const before = newest(record);
  const was = before?.dedupe_digest ?? null;
  const wasHeld = was === null ? undefined : s.dedupe.get(was);
  const nowHeld = d.dedupe_digest === null || d.dedupe_digest === was ? wasHeld : s.dedupe.get(d.dedupe_digest);
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
  if (countsUnderCaps(v)) {
    s.counted += 1;
    s.bytes += v.body_bytes;
  }
  s.records.set(d.key, {
    key: d.key,
    latest: v,
    everPerson: (record?.everPerson ?? false) || d.subject_kind === 'person',
    renewalAskedFor: record?.renewalAskedFor ?? null,
  });
  if (was !== null && was !== d.dedupe_digest) setHolders(s, was, without(wasHeld, d.key));
  if (d.dedupe_digest !== null) {
    // Kept in its place when it held the digest already; its newest version is this one.
    const at = (nowHeld ?? []).findIndex((h) => h.key === d.key);
    const holders = at < 0 ? [...(nowHeld ?? []), { key: d.key, latest: v }] : nowHeld!.map((h, i) => (i === at ? { key: d.key, latest: v } : h));
    setHolders(s, d.dedupe_digest, holders);
  }
  s.requests.set(d.request_key, { key: d.key, version: d.version });
  return s;
};

const setHolders = (s: ScopeState, digest: string, holders: readonly Holder[]) => {
  if (holders.length === 0) s.dedupe.delete(digest);
  else s.dedupe.set(digest, holders);
};
