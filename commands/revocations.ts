import * as E from 'fp-ts/lib/Either.js';
import { describeRevocation } from './revocations-since.ts';
import type { Clock } from '../domain/ports/clock.ts';
import { assertUntampered, type EventStore } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import { reaches } from '../domain/envelopes/reaches.ts';
import { jobDecider } from '../domain/jobs/decide.ts';
import { jobStream, tenantStream } from '../domain/shared/names.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { tenantDecider, type TenantCommand } from '../domain/tenants/decide.ts';
import type { BatchItem } from '../domain/tenants/events.ts';
import type { ReceiptSigner } from '../domain/ports/receipt-signer.ts';
import { runningJobs } from '../queries/running-jobs.ts';
import { handle, handleCommand, stateCache } from './handle.ts';
import { tenantFolded } from './tenant-fold.ts';
import type { TenantSnapshots } from '../queries/tenant-snapshots.ts';
import { randomUUID } from 'node:crypto';
import { eventRegistry, type DomainEvent } from '../domain/events/registry.ts';
import type { TenantSettingsPatch } from '../domain/tenants/settings.ts';
import { tenantView, type TenantState } from '../domain/tenants/state.ts';
import { withoutStartPath } from '../domain/tenants/start-paths.ts';
import { runningSubjects } from '../queries/jobs.ts';
import type { ProveLogged } from './receipt-log.ts';

export interface BatchResult {
  readonly epoch: number;
  readonly stopped: string[];
  readonly indeterminate: { carrier: string; reason: string }[];
  readonly receipt: Record<string, unknown>;
  readonly position: number | null;
}

export interface SettingsChanged {
  readonly tenant: ReturnType<typeof tenantView>;
  /** The batch a change that took authority away was, or null. */
  readonly revocation: BatchResult | null;
  readonly position: number | null;
}

type BatchApplied = Extract<DomainEvent, { type: 'RevocationBatchApplied' }>;
type Existing = Extract<TenantState, { exists: true }>;

/** The answer a batch gave, rebuilt from its signed receipt. */
const answerOf = (epoch: number, receipt: Record<string, unknown>, position: number | null): BatchResult => ({
  epoch,
  stopped: receipt.stopped as string[],
  indeterminate: receipt.indeterminate as { carrier: string; reason: string }[],
  receipt,
  position,
});

/**
 * A revocation batch: decide it on the tenant's stream (one epoch step), stop exactly the
 * running jobs it reaches, and answer a receipt signed with the audit key. The fence needs
 * no stop to have landed: a call is refused as soon as the batch is in the log. A settings
 * change that takes authority away is such a batch too.
 */
export const revocationCommands = (deps: {
  store: EventStore;
  db: Sql;
  clock: Clock;
  receipts: ReceiptSigner;
  /** Waits until the read models hold the log up to a position. */
  settle: (position: number) => Promise<unknown>;
  /** Finishes a receipt with the proof that it was logged; none: receipts are answered as signed. */
  prove?: ProveLogged;
  /** Where a tenant not folded here starts (its MACed snapshot); none: from its first event. */
  tenantSnapshots?: TenantSnapshots;
}) => {
  const { store, db, clock } = deps;
  // A tenant stream is folded from its snapshot in one linear fold (event by event, its maps are
  // copied per event). Kept between batches too: a batch reads only what the stream gained since the last.
  const snapshot = tenantFolded(store, deps.tenantSnapshots);
  const cache = stateCache<TenantState>(1_000);
  const onTenant = (tenant: string, command: TenantCommand, correlation: string | null = null) =>
    handle(store, tenantStream(tenant), tenantDecider, command, { tenant, causation: randomUUID(), correlation }, { snapshot, cache });

  /** The answer, its receipt carrying where it was logged (the event that holds it is at `at`; null: somewhere in the log already). */
  const logged = async (tenant: string, answer: BatchResult, at: number | null): Promise<BatchResult> =>
    deps.prove ? { ...answer, receipt: await deps.prove(tenant, answer.receipt, at ?? (await store.headPosition())) } : answer;

  /** Stops the reached running jobs and issues the batch's receipt. */
  const finish = async (tenant: string, applied: BatchApplied['data'], batchPosition: number, now: number): Promise<BatchResult> => {
    const { epoch, revocations } = applied;
    await deps.settle(batchPosition);
    const rows = await runningJobs(db, tenant);
    const stopped: string[] = [];
    let position: number | null = batchPosition;
    // The listing holds every start below the batch's position. A person's start that raced
    // the batch (committed after the subjects the decider judged were read) is not named in
    // its revocations, yet has no start path under the settings the batch left: it stops too.
    const paths =
      applied.start_roles && applied.start_teams ? { people: applied.people, start_roles: applied.start_roles, start_teams: applied.start_teams } : null;
    for (const job of rows) {
      const reasons = revocations.filter((r) => reaches(r, job.chain)).map(describeRevocation);
      const subject = job.chain[0]?.block.subject;
      if (reasons.length === 0 && paths && subject !== undefined && withoutStartPath(paths, subject)) reasons.push(`person_revoked ${subject}`);
      if (reasons.length === 0) continue;
      const stop = await handleCommand(store, jobStream(tenant, job.id), jobDecider, { type: 'StopJob', job: job.id, epoch, reasons, now }, { tenant });
      if (E.isRight(stop) && stop.right.events.length > 0) {
        stopped.push(job.id);
        position = stop.right.position ?? position;
      }
    }
    // Jobs here run in this service: there is no remote carrier whose stop cannot be proven.
    const indeterminate: { carrier: string; reason: string }[] = [];
    const receipt = deps.receipts.sign({ kind: 'revocation_batch', tenant, epoch, revocations, stopped, indeterminate, issued_ms: now });
    const issued = await onTenant(tenant, { type: 'IssueReceipt', tenant, epoch, receipt, now });
    if (E.isLeft(issued)) throw new Error(`receipt of epoch ${epoch}: ${issued.left.error}`);
    // Another try of the same batch issued its receipt first: that one is the answer.
    const first = issued.right.events.length === 0 && issued.right.state.exists ? issued.right.state.receipts[epoch] : undefined;
    if (first) return logged(tenant, answerOf(epoch, first, position), null);
    return logged(tenant, { epoch, stopped, indeterminate, receipt, position: issued.right.position ?? position }, issued.right.position);
  };

  /** A retried request id: the earlier answer, or — if that try ended before its receipt — the batch finished now. */
  const earlier = async (tenant: string, state: Existing, requestId: string): Promise<BatchResult> => {
    const answered = state.requests.get(requestId);
    if (answered?.kind !== 'revocations') throw new Error(`request ${requestId} answered no batch`);
    const receipt = state.receipts[answered.epoch];
    if (receipt) return logged(tenant, answerOf(answered.epoch, receipt, null), null);
    for (const r of await store.readStream(tenantStream(tenant))) {
      assertUntampered(r);
      if (r.type !== 'RevocationBatchApplied') continue;
      const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
      if (E.isRight(decoded) && decoded.right.type === 'RevocationBatchApplied' && decoded.right.data.epoch === answered.epoch)
        return finish(tenant, decoded.right.data, r.position, clock.now());
    }
    throw new Error(`request ${requestId}: no batch at epoch ${answered.epoch}`);
  };

  return {
    async apply(tenant: string, items: readonly BatchItem[], requestId?: string): Promise<E.Either<Refusal, BatchResult>> {
      const now = clock.now();
      const batch = await onTenant(tenant, { type: 'ApplyRevocations', tenant, items, request_id: requestId, now });
      if (E.isLeft(batch)) return batch;
      const { state, events, position } = batch.right;
      if (events.length === 0 && requestId !== undefined && state.exists) return E.right(await earlier(tenant, state, requestId));
      const applied = events[0];
      if (!applied || applied.type !== 'RevocationBatchApplied' || position === null) throw new Error('a revocation batch decided no batch');
      return E.right(await finish(tenant, applied.data, position, now));
    },

    /**
     * PATCH /v1/tenants/{t} (SPEC §5, §6): a change that takes authority away is applied as
     * one revocation batch, and its answer adds the batch's `revocation`.
     */
    async changeSettings(
      tenant: string,
      changes: TenantSettingsPatch,
      ctx: { correlationId?: string | null } = {},
    ): Promise<E.Either<Refusal, SettingsChanged>> {
      const now = clock.now();
      // The decider judges the subjects of running jobs too: a start restriction turned on
      // reaches people the tenant does not list. (The read models first catch up with the log.)
      await deps.settle(await store.headPosition());
      const running_subjects = await runningSubjects(db, tenant);
      const handled = await onTenant(tenant, { type: 'ChangeTenantSettings', tenant, changes, running_subjects, now }, ctx.correlationId);
      if (E.isLeft(handled)) return handled;
      const { state, events, position } = handled.right;
      if (!state.exists) throw new Error('a settings change succeeded without a tenant');
      const applied = events.find((e): e is BatchApplied => e.type === 'RevocationBatchApplied');
      if (!applied || position === null) return E.right({ tenant: tenantView(state), revocation: null, position });
      const result = await finish(tenant, applied.data, position, now);
      return E.right({ tenant: tenantView(state), revocation: result, position: result.position });
    },
  };
};

export type RevocationCommands = ReturnType<typeof revocationCommands>;
