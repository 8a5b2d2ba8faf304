import * as E from 'fp-ts/lib/Either.js';
import type { Sql } from '../domain/ports/read-model.ts';
import type { RequestCounter } from '../domain/ports/request-counter.ts';
import { bodyOverLimit, MAX_REQUESTS_PER_CALL, requestKey } from '../domain/records/rules.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import { callContext, type CallContext } from '../queries/call-context.ts';
import type { Fence } from '../queries/fence.ts';
import type { Admission } from '../queries/admission.ts';
import type { ListOptions, RecordQueries, Shown } from '../queries/records.ts';
import type { KnownPrior, PutRequest, RecordCommands } from './records.ts';
import { LABELS_MOVED } from './read-audit.ts';
import { GuardFailed, carriedGuard, type AdmissionGuard, type AdmissionGuards, type CarriedGuard } from '../domain/ports/admission-guard.ts';
import { admissionCache } from './records-admission-cache.ts';

/** One records request as the caller shaped it (check 3 is the transport's parser). */
export type RecordsOp =
  | ({ readonly op: 'put' } & PutRequest)
  | { readonly op: 'get'; readonly scope: string; readonly record_key: string; readonly version?: number | undefined }
  | { readonly op: 'history'; readonly scope: string; readonly record_key: string }
  | { readonly op: 'list'; readonly list?: ListOptions | undefined };

/** What checks 1 and 2 let through: the call, and this request's index in it. */
export interface Admitted {
  readonly ctx: CallContext;
  readonly index: number;
  /** Kept for this request only: a read whose labels moved is admitted again before it is decided again. */
  readonly ticket: string;
  /** The write this request's key already made, as the admission statement found it (absent: not looked up). */
  readonly prior?: KnownPrior;
  /** Set when admitted from the call-context cache: counted and checked with the request's first write. */
  readonly guard?: AdmissionGuard;
}

/** Every answer, refusal or not, names the job's purpose ('' when the ticket is unknown). */
export interface Answer<T> {
  readonly purpose: string;
  readonly outcome: E.Either<Refusal, T>;
}

export interface RecordsServiceDeps {
  readonly db: Sql;
  readonly counter: RequestCounter;
  /**
   * Checks 1 and 2 in one statement (queries/admission.ts): the call context, the request
   * count, the prior write and the log heads the fence needs. Absent: three lookups.
   */
  readonly admission?: (ticket: string, blockRevisions: readonly number[]) => Promise<Admission | null>;
  readonly records: RecordCommands;
  readonly queries: RecordQueries;
  /** Records a read (`RecordsRead`, and `LabelsJoined` when it brought labels); answers the position a join must settle to, or null. */
  readonly audit: (ctx: CallContext, op: 'get' | 'history' | 'list', shown: Shown, guard: CarriedGuard | null) => Promise<number | null | typeof LABELS_MOVED>;
  readonly fence: Fence;
  /**
   * Waits until the read models an answer promises hold the log up to `position`; false when
   * they did not within the time allowed (the answer is then an error, never a silent success).
   */
  readonly settle: (position: number) => Promise<boolean>;
  /** True when the records models are written with the append (inline): a put then waits for nothing. */
  readonly recordsInline: boolean;
  /**
   * The call-context cache (with `admission`): a ticket's later requests are admitted with no
   * statement, their guard committed with their first append (`records-admission-cache.ts`).
   */
  readonly cached?: { readonly guards: AdmissionGuards; readonly now: () => number };
}

/** A read decided again this often without its labels holding still is answered as unavailable. */
const MAX_READ_ATTEMPTS = 20;

const unavailable = (what: string) =>
  refusal('unavailable', { reason: `${what} was written, but the read models did not catch up in time; retry the same request` });

/**
 * The records API (SPEC §4) without its transport: checks 1–3 for every op, in order —
 * ticket and fence, then the request count, then the shape — and then the op. A transport
 * that must answer before reading a body (an unknown ticket, a spent call) runs `admit` first
 * and `run` once the body is in; `request` does both.
 */
export const recordsService = (deps: RecordsServiceDeps) => {
  const contexts = deps.cached && deps.admission ? admissionCache(deps.cached.now) : null;

  /** Checks 1 and 2: the ticket and the fence, then the request count (refused requests count too). */
  const admit = async (ticket: string | undefined): Promise<Answer<Admitted>> => {
    if (deps.admission) return admitInOne(ticket);
    const found = ticket ? await callContext(deps.db, ticket) : null;
    if (!found || !ticket) return { purpose: '', outcome: E.left(refusal('ticket')) };
    const verdict = await deps.fence.judge(found, ticket);
    if ('refused' in verdict) return { purpose: found.purpose, outcome: E.left(refusal(verdict.refused)) };
    const { ctx } = verdict;
    const index = await deps.counter.next(ctx.call);
    if (index > MAX_REQUESTS_PER_CALL) return { purpose: ctx.purpose, outcome: E.left(refusal('requests', { limit: MAX_REQUESTS_PER_CALL })) };
    return { purpose: ctx.purpose, outcome: E.right({ ctx, index, ticket }) };
  };

  /**
   * `admit` from the call-context cache when the ticket is in it: no statement, the request
   * counted and checked with its first append. Only for a transport that then always calls
   * `run` (which commits the guard): a request answered without `run` must use `admit`.
   */
  const admitCached = async (ticket: string | undefined): Promise<Answer<Admitted>> => {
    const hit = ticket && contexts?.take(ticket);
    if (!hit || !ticket) return admit(ticket);
    // No prior write is looked up: the guard commits only if this request's key has made none.
    const prior = { write: null, loadsBefore: deps.records.snapshotLoads() };
    return { purpose: hit.ctx.purpose, outcome: E.right({ ctx: hit.ctx, index: hit.index, ticket, prior, guard: hit.guard }) };
  };

  /** `admit` through the one admission statement: the request is counted as its ticket is found. */
  const admitInOne = async (ticket: string | undefined): Promise<Answer<Admitted>> => {
    const loadsBefore = deps.records.snapshotLoads();
    if (ticket) contexts?.drop(ticket);
    const admission = ticket ? await deps.admission!(ticket, deps.fence.blockRevisionsFor(ticket)) : null;
    if (!admission || !ticket) return { purpose: '', outcome: E.left(refusal('ticket')) };
    const verdict = await deps.fence.judge(admission.found, ticket, admission.heads);
    if ('refused' in verdict) return { purpose: admission.found.purpose, outcome: E.left(refusal(verdict.refused)) };
    const { ctx } = verdict;
    const { index } = admission;
    contexts?.keep(ticket, ctx, index, admission.heads, deps.fence.blockRevisionsFor(ticket));
    if (index > MAX_REQUESTS_PER_CALL) return { purpose: ctx.purpose, outcome: E.left(refusal('requests', { limit: MAX_REQUESTS_PER_CALL })) };
    // The prior write was looked up under the read model's idempotency key: used only when the log's agrees.
    const prior = admission.prior.idempotency_key === ctx.idempotency_key ? { prior: { write: admission.prior.write, loadsBefore } } : {};
    return { purpose: ctx.purpose, outcome: E.right({ ctx, index, ticket, ...prior }) };
  };

  /**
   * A duplicate names the record it duplicates (SPEC §4 check 11) — unless a read by this job
   * would withhold that record (a label wall): a refusal never hands over what a read hides.
   */
  const withholdUnseen = async (ctx: CallContext, scope: string, duplicate: Refusal): Promise<Refusal> => {
    const seen = await deps.queries.get(ctx, scope, String(duplicate.key), 0);
    return seen.shown.withheld > 0 ? refusal('duplicate', { withheld: true }) : duplicate;
  };

  const put = async ({ ctx, index, prior }: Admitted, request: PutRequest, guard: CarriedGuard | null): Promise<E.Either<Refusal, object>> => {
    // Serialized once: measured here, sealed as it is by the put.
    const bodyText = JSON.stringify(request.body);
    const over = bodyOverLimit(bodyText);
    if (over !== null) return E.left(refusal('invalid', { field: 'body', reason: over }));
    const written = await deps.records.put(ctx, index, request, prior, guard ?? null, bodyText);
    if (E.isLeft(written)) return written.left.error === 'duplicate' ? E.left(await withholdUnseen(ctx, request.scope, written.left)) : written;
    const { version, scope, key, position } = written.right;
    if (position !== null && !deps.recordsInline && !(await deps.settle(position))) return E.left(unavailable('the put'));
    return E.right({ version, scope, key });
  };

  /**
   * A read is filtered on the job's labels at one revision of its stream and joins what it
   * brought expecting that revision: when another read joined labels first (perhaps the far
   * side of a wall), the job is folded again and the read decided again on its new labels —
   * so two reads at once can never show one job both sides of a wall (SPEC §4 Visibility).
   */
  const read = async (
    { ctx: first, ticket }: Admitted,
    request: Exclude<RecordsOp, { op: 'put' }>,
    guard: CarriedGuard | null,
  ): Promise<E.Either<Refusal, object>> => {
    let ctx = first;
    for (let attempt = 1; attempt <= MAX_READ_ATTEMPTS; attempt++) {
      const result =
        request.op === 'get'
          ? await deps.queries.get(ctx, request.scope, request.record_key, request.version ?? 0)
          : request.op === 'history'
            ? await deps.queries.history(ctx, request.scope, request.record_key)
            : await deps.queries.list(ctx, request.list ?? {});
      const joined = await deps.audit(ctx, request.op, result.shown, guard);
      if (joined === LABELS_MOVED) {
        const again = await deps.fence.judge(ctx, ticket);
        if ('refused' in again) return E.left(refusal(again.refused));
        ctx = again.ctx;
        continue;
      }
      // Joined labels must be on the job before this call's next request is checked.
      if (joined !== null && !(await deps.settle(joined))) return E.left(unavailable('the read'));
      return E.right(result.answer);
    }
    return E.left(unavailable("the read (the job's labels kept moving)"));
  };

  /**
   * Check 3 and the op; a request admitted from the cache answers only once its guard
   * committed (with an append, whose answer said it was counted, or alone when none did). A
   * guard that failed counted and wrote nothing: the request is admitted again in full and
   * run again. A put's guard names its request key (check 5), set as it is built.
   */
  const run = async (admitted: Admitted, body: E.Either<Refusal, RecordsOp>): Promise<Answer<object>> => {
    const { guard, ctx, index } = admitted;
    if (!guard || !deps.cached) return runOnce(admitted, body, null);
    const isPut = E.isRight(body) && body.right.op === 'put';
    const carried = carriedGuard(isPut ? { ...guard, requestKey: requestKey(ctx.idempotency_key, index) } : guard);
    try {
      const answer = await runOnce(admitted, body, carried);
      if (carried.counted || (await deps.cached.guards.alone(carried.guard))) return answer;
    } catch (error) {
      if (!(error instanceof GuardFailed)) throw error;
    }
    const again = await admitInOne(admitted.ticket);
    return E.isLeft(again.outcome) ? again : runOnce(again.outcome.right, body, null);
  };

  /** Check 3 (the shape the transport parsed, or its refusal), then the op. */
  const runOnce = async (admitted: Admitted, body: E.Either<Refusal, RecordsOp>, guard: CarriedGuard | null): Promise<Answer<object>> => {
    const purpose = admitted.ctx.purpose;
    if (E.isLeft(body)) return { purpose, outcome: body };
    const request = body.right;
    return { purpose, outcome: request.op === 'put' ? await put(admitted, request, guard) : await read(admitted, request, guard) };
  };

  const request = async (ticket: string | undefined, body: E.Either<Refusal, RecordsOp>): Promise<Answer<object>> => {
    const admitted = await admitCached(ticket);
    return E.isLeft(admitted.outcome) ? admitted : run(admitted.outcome.right, body);
  };

  return { admit, admitCached, run, request };
};

export type RecordsService = ReturnType<typeof recordsService>;
