import * as E from 'fp-ts/lib/Either.js';
import { refusal, type Refusal } from '../shared/refusal.ts';
import type { TenantSettings } from '../tenants/settings.ts';
import type { Sealed } from './events.ts';
import { DAY_MS, MAX_LIVE_PER_SCOPE } from './rules.ts';
import { personRecordGone } from './reads.ts';
import { checkClosed, checkPeople, checkPurpose, isPersonWrite } from './write-rules.ts';
import { countsUnderCaps, isLive, newest, type OpenedRecordEvent, type ScopeState } from './state.ts';

export interface Writer {
  readonly job: string;
  readonly run: number;
  readonly call: string;
  readonly step: number;
  readonly agent: string;
  readonly plugin: string;
  readonly purpose: string;
  readonly data_subject: string | null;
  readonly labels: readonly string[];
  readonly tainted: boolean;
}

/** A put that passed checks 1–4 (ticket, request count, shape, scope: `checkScope`), with its body sealed. */
export interface PutRecord {
  readonly tenant: string;
  /** The records namespace: the plugin whose function the call runs (not always the writer agent's). */
  readonly plugin: string;
  readonly settings: TenantSettings;
  readonly writer: Writer;
  readonly request_key: string;
  readonly scope: string;
  readonly key: string;
  readonly expect: number;
  readonly kind: string;
  readonly state: string;
  readonly supersedes: string | null;
  readonly ends_at: number | null;
  readonly subject_kind: 'work' | 'person' | null;
  readonly closed: boolean;
  readonly body: Sealed;
  readonly body_bytes: number;
  readonly dedupe_digest: string | null;
  readonly now: number;
  /** This request's first write, when the request keys already hold it (a retry). */
  readonly written_before?: { readonly key: string; readonly version: number } | null;
}

/** Check 10: the end this version gets, or the refusal. */
const decideEnd = (c: PutRecord, currentEnd: number | undefined): E.Either<Refusal, number> => {
  const max = c.now + c.settings.max_end_days * DAY_MS;
  if (c.ends_at === null) return E.right(c.now + c.settings.default_end_days * DAY_MS);
  if (c.ends_at <= c.now) return E.left(refusal('ends_at', { max_days: c.settings.max_end_days }));
  if (c.ends_at > max) {
    // Carrying the record's end forward stays allowed after the tenant lowered its longest end.
    if (currentEnd !== undefined && c.ends_at <= currentEnd) return E.right(max);
    return E.left(refusal('ends_at', { max_days: c.settings.max_end_days }));
  }
  return E.right(c.ends_at);
};

/**
 * Check 11: another live record of the scope, of the job's purpose, with the same digest. The
 * dedupe index holds every record whose newest version holds the digest, with that version:
 * only its entry is read.
 */
const findDuplicate = (s: ScopeState, c: PutRecord) => {
  if (c.dedupe_digest === null) return null;
  for (const { key, latest: v } of s.dedupe.get(c.dedupe_digest) ?? []) {
    if (key === c.key) continue;
    if (isLive(v, c.now) && v.purpose === c.writer.purpose && v.dedupe_digest === c.dedupe_digest) return { key, version: v.version };
  }
  return null;
};

const liveCount = (s: ScopeState, now: number) => {
  let n = 0;
  for (const r of s.records.values()) if (isLive(newest(r), now)) n++;
  return n;
};

/** Person records stop counting at their end, even before retention deletes them (SPEC §4). */
const expiredPeople = (s: ScopeState, now: number, except: string) => {
  let records = 0;
  let bytes = 0;
  for (const [key, r] of s.records) {
    const v = newest(r);
    if (key !== except && countsUnderCaps(v) && v!.subject_kind === 'person' && v!.ends_at <= now) {
      records++;
      bytes += v!.body_bytes;
    }
  }
  return { records, bytes };
};

/** Check 12: caps on records and bytes per plugin and scope, and the fixed live-record bound. */
const checkCaps = (s: ScopeState, c: PutRecord, ends_at: number): Refusal | null => {
  const before = newest(s.records.get(c.key));
  const countedBefore = countsUnderCaps(before);
  const countsAfter = c.state !== 'deleted';
  const recordsAfter = s.counted - (countedBefore ? 1 : 0) + (countsAfter ? 1 : 0);
  const bytesAfter = s.bytes - (countedBefore ? before!.body_bytes : 0) + (countsAfter ? c.body_bytes : 0);
  const over = (recordsAfter > s.counted && recordsAfter > c.settings.caps.records) || (bytesAfter > s.bytes && bytesAfter > c.settings.caps.bytes);
  // The scan for ended person records runs only when the counters alone would refuse.
  const expired = over ? expiredPeople(s, c.now, c.key) : { records: 0, bytes: 0 };
  if (recordsAfter > s.counted && recordsAfter - expired.records > c.settings.caps.records)
    return refusal('full', { cap: 'records', limit: c.settings.caps.records });
  if (bytesAfter > s.bytes && bytesAfter - expired.bytes > c.settings.caps.bytes) return refusal('full', { cap: 'bytes', limit: c.settings.caps.bytes });
  const liveAfter = countsAfter && !c.closed && ends_at > c.now;
  // The live records are some of the scope's records: with fewer than the bound held, no scan can reach it.
  if (liveAfter && !isLive(before, c.now) && s.records.size >= MAX_LIVE_PER_SCOPE && liveCount(s, c.now) >= MAX_LIVE_PER_SCOPE)
    return refusal('full', { cap: 'records', limit: MAX_LIVE_PER_SCOPE });
  return null;
};

/**
 * Checks 5–12 of SPEC §4, in that order; the first that fails answers. An idempotent retry
 * (check 5) decides nothing new: the handler answers the first write from the state.
 */
export const decidePut = (c: PutRecord, s: ScopeState): E.Either<Refusal, readonly OpenedRecordEvent[]> => {
  if (c.written_before || s.requests.has(c.request_key)) return E.right([]);
  const record = s.records.get(c.key);
  const current = newest(record);
  const currentVersion = current?.version ?? 0;
  // Deleted at its end for every reader, a person record still here is kept by a legal hold:
  // writing its key would bring its versions back, and `stale` would tell that it exists.
  if (current && personRecordGone(current, c.now))
    return E.left(
      refusal('held', {
        reason: 'a record about a person that ended under this key is kept under a legal hold; the key can be written again once the hold is released',
      }),
    );
  if (c.expect !== currentVersion) return E.left(refusal('stale', { current: currentVersion }));
  const person = isPersonWrite(c.writer, c.subject_kind, record?.everPerson ?? false);
  const refused =
    checkPurpose(current?.purpose, c.writer) ?? checkClosed(current !== undefined, c.closed) ?? (person ? checkPeople(c.settings, c.writer, c.scope) : null);
  if (refused) return E.left(refused);
  const end = decideEnd(c, current?.ends_at);
  if (E.isLeft(end)) return end;
  const duplicate = findDuplicate(s, c);
  if (duplicate) return E.left(refusal('duplicate', duplicate));
  const full = checkCaps(s, c, end.right);
  if (full) return E.left(full);

  const w = c.writer;
  return E.right([
    {
      type: 'RecordVersionWritten',
      data: {
        tenant: c.tenant,
        plugin: c.plugin,
        scope: c.scope,
        key: c.key,
        version: currentVersion + 1,
        body: c.body,
        body_bytes: c.body_bytes,
        kind: c.kind,
        state: c.state,
        supersedes: c.supersedes,
        ends_at: end.right,
        subject_kind: person ? 'person' : 'work',
        closed: c.closed,
        purpose: w.purpose,
        labels: [...w.labels],
        created_ms: c.now,
        writer: { job: w.job, run: w.run, call: w.call, step: w.step, agent: w.agent, plugin: w.plugin, tainted: w.tainted },
        data_subject: w.data_subject,
        request_key: c.request_key,
        dedupe: null,
        dedupe_digest: c.dedupe_digest,
      },
    },
  ]);
};
