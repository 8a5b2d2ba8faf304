import * as E from 'fp-ts/lib/Either.js';
import { priorWrite as priorWriteOf } from '../queries/request-keys.ts';
import { eventRegistry, type DomainEvent } from '../domain/events/registry.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import type { SealContext, SealedField, Sealer } from '../domain/ports/sealer.ts';
import type { Sealed } from '../domain/records/events.ts';
import { scopeDecider, type ScopeCommand } from '../domain/records/decider.ts';
import { MEMORY_TAINT } from '../domain/records/visibility.ts';
import { recordsStream, requestKey, tenantOfRecordsStream } from '../domain/records/rules.ts';
import type { EnvelopeMacs } from '../domain/ports/envelope-macs.ts';
import { personRecordGone } from '../domain/records/reads.ts';
import { copyScope, newest, type ScopeEvent, type ScopeState } from '../domain/records/state.ts';
import { checkScope } from '../domain/records/write-rules.ts';
import { retentionVerdicts, type RetainScope, type RetentionVerdict } from '../domain/retention/decide.ts';
import { isHeld, type HeldCandidate, type HoldsAt } from '../domain/retention/holds.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import { handle, stateCache, type Codec, type HandlerOptions } from './handle.ts';
import { streamQueues } from './stream-queue.ts';
import type { CallContext } from '../queries/call-context.ts';
import type { Snapshot, SnapshotStore } from '../domain/ports/snapshots.ts';
import { AppendRowTaken, joinRows, keyWork, type AppendRow, type KeyWork, type KeyWorkEnd, type SealedInWork } from '../domain/ports/append-rows.ts';
import { GuardFailed, type CarriedGuard } from '../domain/ports/admission-guard.ts';
import { openScope, packScopeSnapshot, takeScope, type ScopeTaken } from '../domain/records/snapshot.ts';
import type { PartStub } from '../domain/shared/keyed.ts';
import type { WrittenParts } from '../domain/shared/snapshot-parts.ts';
import { readParts, withParts } from '../queries/job-parts.ts';
import { aggregateLoader } from './aggregate-loader.ts';
import { recordRef } from '../domain/audit/lines.ts';

/** How long a put is sealed and decided again while other writers keep making or shredding the keys it names. */
const KEY_RACE_MS = 10_000;
const keysKeptMoving = refusal('unavailable', {
  reason: `other writers kept making or shredding this record's keys for ${KEY_RACE_MS / 1000} s (an erasure of its data subject, say), so nothing of it was written; retry the same request`,
});

export interface PutRequest {
  readonly scope: string;
  readonly record_key: string;
  readonly body: Record<string, unknown>;
  readonly expect: number;
  readonly kind?: string | undefined;
  readonly state?: string | undefined;
  readonly dedupe?: string | undefined;
  readonly supersedes?: string | undefined;
  readonly ends_at?: number | undefined;
  readonly subject_kind?: 'work' | 'person' | undefined;
  readonly closed?: boolean | undefined;
}

export interface Written {
  readonly version: number;
  readonly scope: string;
  readonly key: string;
  readonly position: number | null;
}

const CACHED_STREAMS = 512;

/** The newest version of each record a removal takes, as the scope's state holds it (the removal's audit line names it). */
const removedVersions = (events: readonly ScopeEvent[], s: ScopeState): ReadonlyMap<string, number> => {
  const versions = new Map<string, number>();
  for (const e of events) {
    if (e.type !== 'RecordRemoved') continue;
    const v = newest(s.records.get(e.data.key));
    if (v) versions.set(recordRef(e.data.plugin, e.data.scope, e.data.key), v.version);
  }
  return versions;
};

/** A request key's prior write, looked up before the put, and the snapshot loads counted before that lookup. */
export interface KnownPrior {
  readonly write: { readonly scope: string; readonly key: string; readonly version: number } | null;
  readonly loadsBefore: number;
}

/** A retention run's look at one scope: its candidates as the read model showed them, holds not yet judged. */
export interface RetainRun extends Omit<RetainScope, 'candidates' | 'holds_at'> {
  readonly candidates: readonly (HeldCandidate & { readonly version: number })[];
}

/** Removes one person record past its end (unless held) before a put reuses its key: retention for that key. */
export type RetireEnded = (tenant: string, plugin: string, scope: string, key: string, version: number) => Promise<RetentionVerdict>;

/**
 * The scope codec: digests are opened when a stream is read (the decider compares them) and
 * sealed again under the version's key when its events are written. Bodies stay sealed.
 */
const scopeCodec = (sealer: Sealer): Codec<ScopeEvent> => ({
  async read(recorded) {
    const decoded = eventRegistry.decode(recorded.type, recorded.schema_version, recorded.data);
    if (E.isLeft(decoded)) throw new Error(`records stream ${recorded.stream}: ${decoded.left}`);
    if (decoded.right.type === 'RecordRemoved' || decoded.right.type === 'RenewalRequested') return decoded.right;
    if (decoded.right.type !== 'RecordVersionWritten') throw new Error(`records stream ${recorded.stream}: unexpected ${recorded.type}`);
    const d = decoded.right.data;
    const digest = d.dedupe === null ? null : await sealer.open(d, 'dedupe', d.dedupe);
    return { type: 'RecordVersionWritten', data: { ...d, dedupe_digest: digest } };
  },
  write: async (events) => (await writeScope(sealer, events, null)).events,
  writeInWork: (events, keys) => writeScope(sealer, events, keys),
});

/** The scope's events as stored, their digests sealed (in `keys`, with the key rows the seals answered, when given). */
const writeScope = async (sealer: Sealer, events: readonly ScopeEvent[], keys: KeyWork | null) => {
  const rows: (readonly AppendRow[])[] = [];
  const written = await Promise.all(
    events.map(async (e): Promise<DomainEvent> => {
      if (e.type !== 'RecordVersionWritten') return e;
      const { dedupe_digest, ...data } = e.data;
      let dedupe: Sealed | null = null;
      if (dedupe_digest !== null) {
        const sealed = await sealIn(sealer, data, 'dedupe', dedupe_digest, keys);
        rows.push(sealed.rows);
        dedupe = sealed.sealed;
      }
      return { type: 'RecordVersionWritten', data: { ...data, dedupe } };
    }),
  );
  return { events: written, rows: joinRows(...rows) };
};

/** Seals in `keys` when given (answering the key rows the sealed value needs), else at once (no rows). */
const sealIn = async (sealer: Sealer, c: SealContext, field: SealedField, text: string, keys: KeyWork | null): Promise<SealedInWork> =>
  keys && sealer.sealInWork ? sealer.sealInWork(c, field, text, keys) : { sealed: await sealer.seal(c, field, text), rows: [] };

/**
 * Puts go through one stream per (tenant, plugin, scope): the consistency boundary inside
 * which stale, dedupe, caps and idempotency are decided exactly, by the scope decider, on the
 * one command path (`handle`): cached scope states caught up from their last revision, one
 * command per stream at a time in this process, the expected revision between processes.
 */
export interface RecordCommandsDeps {
  readonly store: EventStore;
  readonly db: Sql;
  readonly sealer: Sealer;
  readonly clock: Clock;
  readonly retire?: RetireEnded;
  /**
   * Scope snapshots: a state not in the cache is read from its snapshot and the events after
   * it, and a snapshot is taken every SNAPSHOT_EVERY events. Needs the request keys inline
   * (the request-keys read model written with the append), since snapshots do not keep them.
   */
  readonly snapshots?: SnapshotStore;
  /** The tenants' envelope MACs a scope snapshot is sealed and checked under (required with `snapshots`). */
  readonly snapshotMac?: EnvelopeMacs;
  /**
   * True when a new record's data key is written with the put's append, as a row of its key
   * work (PostgreSQL's group committer); else the sealer writes the key row before the append.
   */
  readonly keysWithAppend?: boolean;
  readonly onError?: (error: unknown) => void;
}

/** Events between snapshots: a cold load reads at most this many events after one. */
export const SNAPSHOT_EVERY = 500;

/** At most this many puts queued on one scope are decided in order and appended in one statement. */
export const PUTS_PER_BATCH = 64;

export const recordCommands = (deps: RecordCommandsDeps) => {
  const { store, db, sealer, clock } = deps;
  const common: HandlerOptions<ScopeEvent, ScopeState> = {
    cache: stateCache<ScopeState>(CACHED_STREAMS),
    codec: scopeCodec(sealer),
    queues: streamQueues(),
    batch: PUTS_PER_BATCH,
    // A conflict goes on from the state its committed appends left, never a fresh load (see HandlerOptions.copy).
    copy: copyScope,
  };
  const snapshots = deps.snapshots;
  const mac = deps.snapshotMac;
  const stubsOf = (map: { stubOn(key: string): PartStub | null }, keys: Iterable<string | null>) => {
    const out = new Set<PartStub>();
    for (const k of keys) {
      const stub = k === null ? null : map.stubOn(k);
      if (stub) out.add(stub);
    }
    return [...out];
  };
  /**
   * Reads, in two reads at most, the parts a decision on these keys and digests and its events'
   * fold look into: the records under the keys, then the dedupe index under the digests given
   * and the ones those records hold now.
   */
  const readScopeParts = async (s: ScopeState, keys: readonly string[], digests: readonly (string | null)[]) => {
    if (!snapshots) return;
    await readParts(snapshots, stubsOf(s.records, keys));
    await readParts(snapshots, stubsOf(s.dedupe, [...digests, ...keys.map((k) => s.records.get(k)?.latest.dedupe_digest ?? null)]));
  };
  /** The parts a catch-up's events look into, read before they are folded (a state read from a snapshot holds the rest as stubs). */
  const readEvents = (s: ScopeState, events: readonly ScopeEvent[]) =>
    readScopeParts(
      s,
      events.map((e) => e.data.key),
      events.map((e) => (e.type === 'RecordVersionWritten' ? e.data.dedupe_digest : null)),
    );
  const loader = aggregateLoader({
    store,
    decider: scopeDecider,
    cache: common.cache!,
    codec: () => common.codec!,
    ...(snapshots && mac
      ? {
          snapshots: {
            store: snapshots,
            every: SNAPSHOT_EVERY,
            remembered: 4 * CACHED_STREAMS,
            open: (stream: string, found: Snapshot) => openScope(found.state, stream, found.revision, mac(tenantOfRecordsStream(stream))),
            readParts: readEvents,
            // The maps are persistent values: taken as they are now.
            take: (_: string, state: ScopeState) => takeScope(state),
            pack: (taken: ScopeTaken, stream: string, revision: number, written: WrittenParts) =>
              packScopeSnapshot(taken, stream, revision, mac(tenantOfRecordsStream(stream)), written),
            ...(deps.onError ? { onError: deps.onError } : {}),
          },
        }
      : {}),
  });
  const options: HandlerOptions<ScopeEvent, ScopeState> = { ...common, ...loader.loading, newest: removedVersions };
  const withSnapshotParts = loader.retry;
  /** Everything a command's decision looks into is read before `handle` decides (its decide and evolve are synchronous). */
  const partsRead = async (s: ScopeState, keys: readonly string[], digests: readonly (string | null)[], command: () => ScopeCommand) => {
    if (!snapshots) return;
    await readScopeParts(s, keys, digests);
    // A scan (ended person records under a cap, the live-record bound) reads every part: named at once.
    await withParts(snapshots, () => scopeDecider.decide(command(), s));
  };
  const priorWrite = (tenant: string, rk: string) => priorWriteOf(db, tenant, rk);

  /**
   * `known`: the prior write of this request's key already looked up (`write` null: none),
   * with `snapshotLoads()` as it was before that lookup; absent, it is looked up here.
   * `bodyText`: `JSON.stringify(req.body)`, when the caller made it already (to measure it).
   */
  const put = async (
    ctx: CallContext,
    index: number,
    req: PutRequest,
    known?: KnownPrior,
    guard: CarriedGuard | null = null,
    bodyText: string = JSON.stringify(req.body),
  ): Promise<E.Either<Refusal, Written>> => {
    const outOfScope = checkScope(ctx.plugin_scopes, ctx, req.scope);
    if (outOfScope) return E.left(outOfScope);
    const rk = requestKey(ctx.idempotency_key, index);
    // Check 5 across scopes: a retry that names another scope or key still answers its first write.
    const loadsBefore = known ? known.loadsBefore : loader.loads();
    const prior = known ? known.write : await priorWrite(ctx.tenant, rk);
    if (prior) return E.right({ ...prior, position: null });

    const stream = recordsStream(ctx.tenant, ctx.plugin, req.scope);
    // A person record past its end is deleted for every reader: a put on its key starts a new
    // record, so the old one is removed and its keys shredded first, then the put is sealed
    // (under a fresh key) and decided again. The decider refuses such a put (`held`) from a state
    // caught up, so it is seen there, with no read of its own; a hold keeps the record, and the
    // second decision refuses the put again.
    // Each decision seals in its own key work: the keys it made or checked ride with its append
    // only (never with the retirement's, which shreds the old record's keys in between), and
    // the work ends with the decision, told how it ended. The request's guard rides with its
    // appends until a verdict counted it.
    const inWork = async (decide: (keys: KeyWork | null) => ReturnType<typeof decideOn>) => {
      if (!deps.keysWithAppend) return decide(null);
      const work = keyWork(guard !== null && !guard.counted);
      let end: KeyWorkEnd = 'ended';
      try {
        const decision = await decide(work);
        if (E.isRight(decision) && decision.right.position !== null) end = 'committed';
        return decision;
      } catch (error) {
        if (error instanceof AppendRowTaken || (error instanceof GuardFailed && error.rowTaken)) end = 'row_taken';
        throw error;
      } finally {
        sealer.endWork?.(work, end);
      }
    };
    const decided = async () => {
      let ended: number | null = null;
      let first = await inWork((keys) => decideOn(ctx, rk, loadsBefore, req, bodyText, stream, (v) => (ended = v), keys, guard));
      if (E.isLeft(first) && ended !== null && deps.retire) {
        await deps.retire(ctx.tenant, ctx.plugin, req.scope, req.record_key, ended);
        first = await inWork((keys) => decideOn(ctx, rk, loadsBefore, req, bodyText, stream, () => undefined, keys, guard));
      }
      return first;
    };
    // A new record's key commits with the put's append only (a refused put leaves none); when
    // another writer made the record's key first, or a key this instance knew was shredded
    // elsewhere (an erasure racing the put), the put is sealed and decided again — as long as
    // that goes on, up to a bound: then it is refused `unavailable`, nothing of it written.
    let handled: Awaited<ReturnType<typeof decided>>;
    const giveUpAt = Date.now() + KEY_RACE_MS;
    for (;;) {
      try {
        handled = await decided();
        break;
      } catch (error) {
        if (!(error instanceof AppendRowTaken)) throw error;
        if (Date.now() > giveUpAt) return E.left(keysKeptMoving);
      }
    }
    if (E.isLeft(handled)) return handled;
    const written = handled.right.events.at(-1);
    if (written?.type === 'RecordVersionWritten')
      return E.right({ version: written.data.version, scope: written.data.scope, key: written.data.key, position: handled.right.position });
    // An idempotent retry decided nothing: answer its first write.
    const first = handled.right.state.requests.get(rk);
    if (first) return E.right({ version: first.version, scope: req.scope, key: first.key, position: null });
    return E.right({ ...(await priorWrite(ctx.tenant, rk))!, position: null });
  };

  /** Seals the body (`bodyText`, its JSON) and decides the put; `gone` hears, per decision, the version of an ended person record under the key (or null). */
  const decideOn = async (
    ctx: CallContext,
    rk: string,
    loadsBefore: number,
    req: PutRequest,
    bodyText: string,
    stream: string,
    gone: (version: number | null) => void,
    keys: KeyWork | null,
    guard: CarriedGuard | null,
  ) => {
    const version = req.expect + 1;
    const { sealed: body, rows } = await sealIn(
      sealer,
      { tenant: ctx.tenant, plugin: ctx.plugin, scope: req.scope, key: req.record_key, version, data_subject: ctx.data_subject },
      'body',
      bodyText,
      keys,
    );
    const digest = req.dedupe === undefined ? null : sealer.dedupeDigest(ctx.tenant, req.dedupe);

    return withSnapshotParts(stream, () =>
      handle(
        store,
        stream,
        scopeDecider,
        async (s: ScopeState) => {
          await readScopeParts(s, [req.record_key], [digest]);
          const v = newest(s.records.get(req.record_key));
          gone(v && personRecordGone(v, clock.now()) ? v.version : null);
          const command: ScopeCommand = {
            type: 'PutRecord' as const,
            // A snapshot holds no request keys: a write of this request that committed between
            // the check above and a snapshot read is found here.
            written_before: snapshots && loader.loads() !== loadsBefore ? await priorWrite(ctx.tenant, rk) : null,
            tenant: ctx.tenant,
            plugin: ctx.plugin,
            settings: ctx.settings,
            writer: {
              job: ctx.job,
              run: ctx.run,
              call: ctx.call,
              step: ctx.step,
              agent: ctx.agent,
              plugin: ctx.agent_plugin,
              purpose: ctx.purpose,
              data_subject: ctx.data_subject,
              labels: ctx.labels,
              tainted: ctx.labels.includes(MEMORY_TAINT),
            },
            request_key: rk,
            scope: req.scope,
            key: req.record_key,
            expect: req.expect,
            kind: req.kind ?? 'note',
            state: req.state ?? 'active',
            supersedes: req.supersedes ?? null,
            ends_at: req.ends_at ?? null,
            subject_kind: req.subject_kind ?? null,
            closed: req.closed ?? false,
            body,
            body_bytes: Buffer.byteLength(bodyText),
            dedupe_digest: digest,
            now: clock.now(),
          };
          await partsRead(s, [req.record_key], [digest], () => command);
          return command;
        },
        { tenant: ctx.tenant, causation: ctx.call, correlation: ctx.job },
        options,
        { ...(keys ? { keys, rows } : {}), guard },
      ),
    );
  };

  /**
   * Retention for one scope, through the same path as a put: decided against the scope's
   * current state and appended with the revision it was decided on, so a put that moved a
   * record's end in between makes it decide again instead of being undone; and decided against
   * the holds in force as it is appended (`holds`, read again on every attempt, and the
   * append's condition), so a hold placed while a run is under way stops it.
   */
  const retain = async (c: RetainRun, holds: () => Promise<HoldsAt>): Promise<{ verdicts: Map<string, RetentionVerdict>; position: number | null }> => {
    const stream = recordsStream(c.tenant, c.plugin, c.scope);
    let verdicts = new Map<string, RetentionVerdict>();
    const handled = await withSnapshotParts(stream, () =>
      handle(
        store,
        stream,
        scopeDecider,
        async (s: ScopeState) => {
          const h = await holds();
          const command: RetainScope = {
            ...c,
            candidates: c.candidates.map((r) => ({ key: r.key, version: r.version, held: isHeld(h.holds, r) })),
            holds_at: h.at,
          };
          await partsRead(
            s,
            command.candidates.map((r) => r.key),
            [],
            () => ({ type: 'RetainScope' as const, ...command }),
          );
          verdicts = retentionVerdicts(command, s);
          return { type: 'RetainScope' as const, ...command };
        },
        { tenant: c.tenant },
        { ...options, conditions: (command) => (command.type === 'RetainScope' ? { unmoved: [command.holds_at] } : undefined) },
      ),
    );
    if (E.isLeft(handled)) throw new Error(`records stream ${stream}: retention refused ${handled.left.error}`);
    return { verdicts, position: handled.right.position };
  };

  return { put, retain, snapshotLoads: loader.loads };
};

export type RecordCommands = ReturnType<typeof recordCommands>;
