import { randomBytes, randomUUID } from 'node:crypto';
import { ticketHash } from '../domain/shared/hash.ts';
import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import { TamperedLog, type EventStore, type ExpectedRevision } from '../domain/ports/event-store.ts';
import { jobDecider, type JobCommand, type StartJobRequest } from '../domain/jobs/decide.ts';
import { envelopeView, evolveJob, jobView, liveCall, partsNamed, type JobState } from '../domain/jobs/state.ts';
import { chainVerifies } from '../domain/envelopes/block.ts';
import type { EnvelopeMacs } from '../domain/ports/envelope-macs.ts';
import { wideningRefusedDecider } from '../domain/jobs/widening-refused.ts';
import { jobStream, tenantOfJobStream } from '../domain/shared/names.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import { handle, handleCommand, inspect, type Handled, type HandlerOptions } from './handle.ts';
import { jobBlocks, jobStateCache } from './job-blocks.ts';
import type { FileCommands, HandSource } from './files.ts';
import { treeOf } from '../domain/files/ref.ts';
import type { Ctx } from './tenants.ts';
import { reachedSince, type TenantLog } from './revocations-since.ts';
import { tenantLogs } from './tenant-logs.ts';
import { tenantSnapshots } from '../queries/tenant-snapshots.ts';
import type { Snapshot, SnapshotStore } from '../domain/ports/snapshots.ts';
import { packJob, unpackJob, type JobSnapshot, type WrittenParts } from '../domain/jobs/snapshot.ts';
import { readParts, withParts } from '../queries/job-parts.ts';
import type { JobStreamEvent } from '../domain/jobs/state.ts';

import { startRevoked } from '../domain/jobs/sticky.ts';
import { startupFunctions } from '../domain/startup/plugins.ts';
import { aggregateLoader } from './aggregate-loader.ts';

/** Job states kept folded per instance; the least recently used goes first. */
const CACHED_JOBS = 2_000;

/** A handing refused after its start committed: the job runs, and the same start sent again hands its files. */
const filesNotHandedYet = (handing: Refusal): Refusal =>
  handing.error === 'unavailable'
    ? refusal('unavailable', {
        reason: 'the job was started, but other writers kept changing its tree, so its files were not handed yet; retry the same start to hand them',
      })
    : handing;
/** Events between a job's snapshots: a cold load reads at most this many events after one. */
const SNAPSHOT_EVERY = 100;

/** Tickets carry 256 random bits; only their SHA-256 is ever stored. */
export const newTicket = (): string => randomBytes(32).toString('base64url');

type Existing = Extract<JobState, { exists: true }>;
const existing = (h: Handled<JobState>): Existing => {
  if (!h.state.exists) throw new Error('job command succeeded without a job');
  return h.state;
};

/** A job's state as folded, and the revision it was folded to (for an append that expects it). */
export interface JobFolded {
  readonly state: JobState;
  readonly revision: ExpectedRevision;
}

export interface MintedCall {
  readonly call: string;
  readonly step: number;
  readonly function: string;
  readonly ticket: string;
  readonly idempotency_key: string;
  readonly agent: string;
  readonly startup: boolean;
  readonly position: number | null;
}

/**
 * `settle` waits until the read models hold the log up to a position — and so until every
 * append below it has committed or failed (positions are handed out in transaction order).
 */
export const jobCommands = (
  store: EventStore,
  clock: Clock,
  macs: EnvelopeMacs,
  settle?: (position: number) => Promise<unknown>,
  /** Whether a job tree still holds files (SPEC §13), for the id-reuse refusal; none: never. */
  holdsFiles?: (tenant: string, tree: string) => Promise<boolean>,
  /** Handing files named by an admin start to the new job's tree (SPEC §13); none: refused. */
  handFiles?: Pick<FileCommands, 'handable' | 'hand'>,
  /** Job snapshots: a job not in this instance's cache is read from its snapshot and the events after it. */
  snapshots?: SnapshotStore,
  onError?: (error: unknown) => void,
) => {
  const blocks = jobBlocks(4 * CACHED_JOBS);
  const cache = jobStateCache(CACHED_JOBS, blocks);
  const tenantLog = tenantLogs(store, undefined, snapshots ? tenantSnapshots(snapshots, macs) : undefined, onError);
  const loader = aggregateLoader({
    store,
    decider: jobDecider,
    cache,
    codec: blocks.codec,
    ...(snapshots
      ? {
          snapshots: {
            store: snapshots,
            every: SNAPSHOT_EVERY,
            remembered: 4 * CACHED_JOBS,
            open: (stream: string, found: Snapshot) => {
              const packed = unpackJob(found.state, stream, found.revision, macs(tenantOfJobStream(stream)));
              // The blocks' marks as they were when the snapshot was taken: checked before the state is used.
              if (packed?.blocks && typeof packed.marks === 'string') blocks.restore(stream, packed.blocks, packed.marks);
              return packed?.state ?? null;
            },
            readParts: (state: JobState, events: readonly JobStreamEvent[]) => readParts(snapshots, partsNamed(state, events)),
            // States are values; the block list is copied.
            take: (stream: string, state: JobState): JobSnapshot => {
              const known = blocks.get(stream);
              return known && known.marks !== null ? { state, blocks: [...known.revisions], marks: known.marks } : { state };
            },
            pack: (taken: JobSnapshot, stream: string, revision: number, written: WrittenParts) =>
              packJob(taken, stream, revision, macs(tenantOfJobStream(stream)), written),
            // A job whose snapshot part is gone is replayed whole (its cache and snapshot set aside, its blocks learned again).
            forget: blocks.distrust,
            replaying: blocks.replaying,
            ...(onError ? { onError } : {}),
          },
        }
      : {}),
  });
  const options = (stream: string): HandlerOptions<JobStreamEvent, JobState> => ({
    cache,
    codec: blocks.codec(stream),
    // A job whose log does not verify has no envelope to act under (SPEC §6: it gets nothing).
    tampered: (t) => refusal('envelope_invalid', { reason: `the job's log does not verify: ${t.reason} (revision ${t.revision})` }),
    ...loader.loading,
  });
  const withSnapshotParts = loader.retry;
  /**
   * The command as `handle` decides it, its decision and the state it leaves first worked out
   * on the state it is given, so every snapshot part they look into is read before `handle`
   * decides (its decide and evolve are synchronous).
   */
  const partsRead =
    (command: JobCommand | ((s: JobState) => JobCommand)) =>
    async (state: JobState): Promise<JobCommand> => {
      const c = typeof command === 'function' ? command(state) : command;
      if (!snapshots) return c;
      const decided = await withParts(snapshots, () => jobDecider.decide(c, state));
      if (E.isRight(decided)) {
        await readParts(snapshots, partsNamed(state, decided.right));
        await withParts(snapshots, () => decided.right.reduce(evolveJob, state));
      }
      return c;
    };
  const run = (tenant: string, job: string, command: JobCommand | ((s: JobState) => JobCommand), ctx: Ctx) =>
    withSnapshotParts(jobStream(tenant, job), () =>
      handle(
        store,
        jobStream(tenant, job),
        jobDecider,
        partsRead(command),
        { tenant, causation: ctx.causationId ?? randomUUID(), correlation: ctx.correlationId ?? null },
        options(jobStream(tenant, job)),
      ),
    );
  /** The job's state caught up (from the cache, else its snapshot), under the stream's lock. */
  const current = (tenant: string, job: string): Promise<JobState> =>
    withSnapshotParts(
      jobStream(tenant, job),
      () => inspect(store, jobStream(tenant, job), jobDecider, (s) => s, options(jobStream(tenant, job))) as Promise<JobState>,
    );
  /** `current`, where a log that does not verify stays set aside: the command's own load replays it and refuses. */
  const load = (tenant: string, job: string) =>
    current(tenant, job).catch((error: unknown) => {
      if (!(error instanceof TamperedLog)) throw error;
      blocks.distrust(jobStream(tenant, job));
      return null;
    });
  /**
   * A cached job state is used only while its blocks' marks hold: one indexed read of a few
   * rows. Blocks not known yet, not marked yet or edited in place: their marks are taken, then
   * the whole log is replayed after them (as the fence does), so an edit made before shows in
   * the log's MACs now and one made after in the marks next time.
   */
  const checkBlocks = async (tenant: string, job: string) => {
    const marks = store.marks?.bind(store);
    if (!marks) return;
    const stream = jobStream(tenant, job);
    let known = blocks.get(stream);
    if (known && known.marks !== null && (await marks(stream, known.revisions)).marks === known.marks) return;
    if (!known) {
      blocks.distrust(stream);
      await load(tenant, job);
      known = blocks.get(stream);
      if (!known) return;
    }
    const seen = await marks(stream, known.revisions);
    blocks.distrust(stream);
    await load(tenant, job);
    const again = blocks.get(stream);
    if (again && again.revisions.length === known.revisions.length && again.revisions.every((r, i) => r === known.revisions[i])) again.marks = seen.marks;
  };
  /**
   * The position of the job stream's newest event: read from the revision this instance last
   * folded (a cold job is caught up from its snapshot first), never the whole stream.
   */
  const newestPosition = async (tenant: string, job: string): Promise<number | undefined> => {
    const stream = jobStream(tenant, job);
    if (!cache.get(stream)) await load(tenant, job);
    const revision = cache.get(stream)?.revision;
    return (await store.readStream(stream, typeof revision === 'number' ? revision : 0)).at(-1)?.position;
  };

  /**
   * A start is decided on the tenant at some revision R and appended at position P. A
   * revocation batch appended in between (below P) was not seen by the decision, and its
   * own listing of running jobs (which waits for the read models up to the batch's position,
   * below P) may not hold this job. So, once every append below P has finished, the start
   * reads the tenant from the log below P: if a batch since the job's epoch reaches the new
   * chain, or the tenant below P refuses such a start (a kill, a removed plugin, a revoked
   * key, a person left without a start path), the job stops itself and the start is refused.
   * A batch appended above P lists this job (its listing waits up to its own position, past
   * P) and stops it in its receipt. So every start is either refused or in the receipt of
   * every batch that reaches it — never running past a revocation.
   */
  const stopIfRevokedMeanwhile = async (
    tenant: string,
    job: string,
    request: StartJobRequest,
    s: Existing,
    position: number,
    ctx: Ctx,
  ): Promise<Refusal | null> => {
    if (settle) await settle(position);
    const log = await tenantLog(tenant, position);
    const hit = reachedSince(log, s.chain);
    const sticky = log.state.exists ? startRevoked(log.state, request) : null;
    const reasons = sticky === null ? hit.reasons : [...hit.reasons, sticky];
    if (reasons.length === 0) return null;
    const epoch = Math.max(hit.epoch, log.state.exists ? log.state.authority_epoch : 0);
    await run(tenant, job, { type: 'StopJob', job, epoch, reasons, now: clock.now() }, ctx);
    return refusal('revoked', { reason: reasons.join('; ') });
  };

  /**
   * `command` decided as every job command is (this instance's cache, the job's snapshot and
   * parts), after the job's log has settled and its blocks' marks are checked, on the tenant's
   * log as it stands then: a mint's path, and start-up's.
   */
  const onSettledJob = async (
    tenant: string,
    job: string,
    command: (log: TenantLog) => JobCommand | ((s: JobState) => JobCommand),
    ctx: Ctx,
  ): Promise<E.Either<Refusal, Handled<JobState>>> => {
    // Every append below the job's newest event has finished first, so a batch that raced the
    // job's start is in the tenant's log read.
    const newest = await newestPosition(tenant, job);
    await checkBlocks(tenant, job);
    if (settle && newest !== undefined) await settle(newest);
    const log = await tenantLog(tenant);
    return run(tenant, job, command(log), ctx);
  };

  return {
    onSettledJob,
    /**
     * The job's state and the revision it is folded to, from this instance's cache or the job's
     * MACed snapshot, caught up from the log: what a file read's label join and a result's
     * threshold read, without replaying the job's whole stream each time.
     */
    folded(tenant: string, job: string): Promise<JobFolded> {
      const stream = jobStream(tenant, job);
      return withSnapshotParts(
        stream,
        () =>
          inspect(
            store,
            stream,
            jobDecider,
            (state) => ({ state, revision: cache.get(stream)?.revision ?? 'no_stream' }),
            options(stream),
          ) as Promise<JobFolded>,
      );
    },

    async start(tenant: string, job: string | undefined, request: StartJobRequest, ctx: Ctx = {}) {
      const id = job ?? randomUUID();
      const { state: tenantState } = await tenantLog(tenant);
      const parent = request.parent === undefined ? null : await current(tenant, request.parent);
      const named = request.files ?? [];
      const handing: E.Either<Refusal, readonly HandSource[]> =
        named.length === 0
          ? E.right([])
          : handFiles
            ? await handFiles.handable(tenant, named)
            : E.left(refusal('invalid', { field: 'files', reason: 'files cannot be handed here' }));
      if (E.isLeft(handing)) return handing;
      const now = clock.now();
      // Only a chosen id can name a tree that stored files; a fresh UUID never does.
      const treeHoldsFiles = job !== undefined && holdsFiles ? await holdsFiles(tenant, id) : false;
      const result = await run(tenant, id, { type: 'StartJob', tenant: tenantState, job: id, request, parent, mac: macs(tenant), treeHoldsFiles, now }, ctx);
      if (E.isLeft(result) && result.left.error === 'widening_refused' && parent?.exists) {
        // The refusal is a fact of the parent's tree: it goes on the parent's stream, for the audit.
        const { field, reason } = result.left as unknown as { field: string; reason: string };
        const noted = await handleCommand(
          store,
          jobStream(tenant, parent.start.job),
          wideningRefusedDecider,
          { tenant, job: parent.start.job, run: parent.start.run, child: id, field, reason, now },
          { ...ctx, tenant },
        );
        if (E.isLeft(noted)) return noted;
      }
      const started = E.isRight(result) && result.right.events.length > 0 && result.right.position !== null;
      if (E.isRight(result) && started) {
        const stopped = await stopIfRevokedMeanwhile(tenant, id, request, existing(result.right), result.right.position!, ctx);
        if (stopped) return E.left(stopped);
      }
      if (E.isRight(result) && handFiles && handing.right.length > 0) {
        // The start is in the log before its files are handed: when the handing is refused
        // (other writers kept moving the tree), the same start sent again — a repeat of the
        // running start, which decides nothing — hands what is still missing, nothing twice.
        const s = existing(result.right);
        const to = { tree: treeOf(s.chain, id), job: id, run: s.start.run, data_subject: s.start.data_subject };
        const handed = await handFiles.hand(tenant, to, handing.right);
        if (E.isLeft(handed)) return started ? E.left(filesNotHandedYet(handed.left)) : handed;
        return E.right({ job: jobView(s), envelope: envelopeView(s), position: handed.right.position ?? result.right.position });
      }
      return E.map((h: Handled<JobState>) => {
        const s = existing(h);
        return { job: jobView(s), envelope: envelopeView(s), position: h.position };
      })(result);
    },

    async mintCall(
      tenant: string,
      job: string,
      fn: string,
      options: { step?: number | undefined; startup?: boolean | undefined },
      ctx: Ctx = {},
    ): Promise<E.Either<Refusal, MintedCall>> {
      const ticket = newTicket();
      const call = randomUUID();
      const mac = macs(tenant);
      // No window between a batch and the stop it causes: a revocation in the log since the
      // job's epoch that reaches its chain refuses the mint, as it refuses the fence.
      const result = await onSettledJob(
        tenant,
        job,
        (log) => (state: JobState) => ({
          type: 'MintCall',
          revokedBy: state.exists ? reachedSince(log, state.chain).reasons : [],
          envelopeValid: state.exists && chainVerifies(state.chain, mac),
          job,
          function: fn,
          step: options.step,
          startup: options.startup ?? false,
          startupOf: log.state.exists ? startupFunctions(log.state.plugins) : undefined,
          call,
          ticketHash: ticketHash(ticket),
          newIdempotencyKey: randomBytes(18).toString('base64url'),
          now: clock.now(),
        }),
        ctx,
      );
      return E.map((h: Handled<JobState>) => {
        const s = existing(h);
        const minted = liveCall(s, call)!;
        return {
          call,
          step: minted.step,
          function: minted.function,
          ticket,
          idempotency_key: minted.idempotency_key,
          agent: s.start.agent,
          startup: minted.startup,
          position: h.position,
        };
      })(result);
    },

    async endCall(tenant: string, job: string, call: string, ctx: Ctx = {}) {
      const result = await run(tenant, job, { type: 'EndCall', job, call, now: clock.now() }, ctx);
      return E.map((h: Handled<JobState>) => ({ call: { id: call, ended: true }, position: h.position }))(result);
    },

    async end(tenant: string, job: string, ctx: Ctx = {}) {
      const result = await run(tenant, job, { type: 'EndJob', job, now: clock.now() }, ctx);
      return E.map((h: Handled<JobState>) => ({ job: jobView(existing(h)), position: h.position }))(result);
    },
  };
};

export type JobCommands = ReturnType<typeof jobCommands>;
