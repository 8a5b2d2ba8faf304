import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../domain/events/registry.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore, ExpectedRevision } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import type { Sealer } from '../domain/ports/sealer.ts';
import { decidePut } from '../domain/records/decide.ts';
import { MEMORY_TAINT } from '../domain/records/visibility.ts';
import { recordsStream, requestKey } from '../domain/records/rules.ts';
import { personRecordGone } from '../domain/records/reads.ts';
import { evolveScope, initialScopeState, newest, type ScopeEvent, type ScopeState } from '../domain/records/state.ts';
import { checkScope } from '../domain/records/write-rules.ts';
import { decideRetention, retentionVerdicts, type RetainScope, type RetentionVerdict } from '../domain/retention/decide.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { backoff, streamLocks } from './exclusive.ts';
import type { CallContext } from '../queries/call-context.ts';

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

interface Cached {
  state: ScopeState;
  revision: ExpectedRevision;
}

const MAX_ATTEMPTS = 50;
const CACHED_STREAMS = 512;

/**
 * Puts go through one stream per (tenant, plugin, scope): the consistency boundary inside
 * which stale, dedupe, caps and idempotency are decided exactly. Scope states are cached and
 * caught up from their last revision; one put per stream runs at a time in this process, and
 * the expected revision settles races with other processes.
 */
/** Removes one person record past its end (unless held) before a put reuses its key: retention for that key. */
export type RetireEnded = (tenant: string, plugin: string, scope: string, key: string, version: number) => Promise<RetentionVerdict>;

export const recordCommands = (deps: { store: EventStore; db: Sql; sealer: Sealer; clock: Clock; retire?: RetireEnded }) => {
  const { store, db, sealer, clock } = deps;
  const cache = new Map<string, Cached>();
  const exclusive = streamLocks();

  /** Opens the sealed digest of each version so the decider can compare digests. */
  const open = async (recorded: Awaited<ReturnType<EventStore['readStream']>>[number]): Promise<ScopeEvent> => {
    const decoded = eventRegistry.decode(recorded.type, recorded.schema_version, recorded.data);
    if (E.isLeft(decoded)) throw new Error(`records stream ${recorded.stream}: ${decoded.left}`);
    if (decoded.right.type === 'RecordRemoved' || decoded.right.type === 'RenewalRequested') return decoded.right;
    if (decoded.right.type !== 'RecordVersionWritten') throw new Error(`records stream ${recorded.stream}: unexpected ${recorded.type}`);
    const d = decoded.right.data;
    const digest = d.dedupe === null ? null : await sealer.open(d, 'dedupe', d.dedupe);
    return { type: 'RecordVersionWritten', data: { ...d, dedupe_digest: digest } };
  };

  const load = async (stream: string): Promise<Cached> => {
    let entry = cache.get(stream);
    if (!entry) entry = { state: initialScopeState(), revision: 'no_stream' };
    const from = entry.revision === 'no_stream' ? 0 : (entry.revision as number) + 1;
    for (const r of await store.readStream(stream, from)) {
      entry.state = evolveScope(entry.state, await open(r));
      entry.revision = r.revision;
    }
    cache.delete(stream);
    cache.set(stream, entry);
    if (cache.size > CACHED_STREAMS) cache.delete(cache.keys().next().value!);
    return entry;
  };

  const put = async (ctx: CallContext, index: number, req: PutRequest): Promise<E.Either<Refusal, Written>> => {
    const outOfScope = checkScope(ctx.plugin_scopes, ctx, req.scope);
    if (outOfScope) return E.left(outOfScope);
    const rk = requestKey(ctx.idempotency_key, index);
    // Check 5 across scopes: a retry that names another scope or key still answers its first write.
    const { rows: prior } = await db.query<{ scope: string; key: string; version: number }>(
      'SELECT scope, key, version FROM rm_request_keys WHERE tenant = $1 AND request_key = $2',
      [ctx.tenant, rk],
    );
    if (prior[0]) return E.right({ ...prior[0], position: null });

    const stream = recordsStream(ctx.tenant, ctx.plugin, req.scope);
    // A person record past its end is deleted for every reader: a put on its key starts a new
    // record, so the old one is removed and its keys shredded first (before this body is sealed
    // under them). A hold keeps it, and the decider then refuses the put (`held`).
    const ended = await exclusive(stream, async () => {
      const v = newest((await load(stream)).state.records.get(req.record_key));
      return v && personRecordGone(v, clock.now()) ? v.version : null;
    });
    if (ended !== null && deps.retire) await deps.retire(ctx.tenant, ctx.plugin, req.scope, req.record_key, ended);

    const version = req.expect + 1;
    const sealContext = { tenant: ctx.tenant, plugin: ctx.plugin, scope: req.scope, key: req.record_key, version, data_subject: ctx.data_subject };
    const bodyText = JSON.stringify(req.body);
    const body = await sealer.seal(sealContext, 'body', bodyText);
    const digest = req.dedupe === undefined ? null : sealer.dedupeDigest(ctx.tenant, req.dedupe);

    return exclusive(stream, async () => {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const entry = await load(stream);
        const decision = decidePut(
          {
            tenant: ctx.tenant,
            plugin: ctx.plugin,
            settings: ctx.settings,
            writer: {
              job: ctx.job, run: ctx.run, call: ctx.call, step: ctx.step, agent: ctx.agent, plugin: ctx.agent_plugin,
              purpose: ctx.purpose, data_subject: ctx.data_subject, labels: ctx.labels, tainted: ctx.labels.includes(MEMORY_TAINT),
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
          },
          entry.state,
        );
        if (E.isLeft(decision)) return decision;
        if (decision.right.length === 0) {
          const first = entry.state.requests.get(rk)!;
          return E.right({ version: first.version, scope: req.scope, key: first.key, position: null });
        }
        const events = decision.right;
        const stored = await Promise.all(
          events.map(async ({ data: { dedupe_digest, ...data } }) => ({
            event_id: randomUUID(),
            ...eventRegistry.encode({
              type: 'RecordVersionWritten',
              data: { ...data, dedupe: dedupe_digest === null ? null : await sealer.seal({ ...sealContext, version: data.version }, 'dedupe', dedupe_digest) },
            }),
            metadata: { tenant: ctx.tenant, causation_id: ctx.call, correlation_id: ctx.job },
          })),
        );
        const appended = await store.append(stream, stored, entry.revision);
        if (E.isLeft(appended)) {
          await backoff(attempt);
          continue;
        }
        for (const e of events) entry.state = evolveScope(entry.state, e);
        entry.revision = appended.right.nextExpectedRevision;
        const written = events.at(-1)!.data;
        return E.right({ version: written.version, scope: written.scope, key: written.key, position: appended.right.position });
      }
      throw new Error(`records stream ${stream}: still conflicting after ${MAX_ATTEMPTS} attempts`);
    });
  };

  /**
   * Retention for one scope, through the same path as a put: decided against the scope's
   * current state and appended with the revision it was decided on, so a put that moved a
   * record's end in between makes it decide again instead of being undone.
   */
  const retain = async (c: RetainScope): Promise<{ verdicts: Map<string, RetentionVerdict>; position: number | null }> => {
    const stream = recordsStream(c.tenant, c.plugin, c.scope);
    return exclusive(stream, async () => {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const entry = await load(stream);
        const verdicts = retentionVerdicts(c, entry.state);
        const decision = decideRetention(c, entry.state);
        if (E.isLeft(decision)) throw new Error(`records stream ${stream}: retention refused ${decision.left.error}`);
        const events = decision.right;
        if (events.length === 0) return { verdicts, position: null };
        const stored = events.map((e) => ({
          event_id: randomUUID(),
          ...eventRegistry.encode(e as Exclude<ScopeEvent, { type: 'RecordVersionWritten' }>),
          metadata: { tenant: c.tenant, causation_id: null, correlation_id: null },
        }));
        const appended = await store.append(stream, stored, entry.revision);
        if (E.isLeft(appended)) {
          await backoff(attempt);
          continue;
        }
        for (const e of events) entry.state = evolveScope(entry.state, e);
        entry.revision = appended.right.nextExpectedRevision;
        return { verdicts, position: appended.right.position };
      }
      throw new Error(`records stream ${stream}: still conflicting after ${MAX_ATTEMPTS} attempts`);
    });
  };

  return { put, retain };
};

export type RecordCommands = ReturnType<typeof recordCommands>;
