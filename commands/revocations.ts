import * as E from 'fp-ts/lib/Either.js';
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import { reaches, type Revocation } from '../domain/envelopes/reaches.ts';
import type { Chain } from '../domain/envelopes/block.ts';
import { jobDecider } from '../domain/jobs/decide.ts';
import { jobStream, tenantStream } from '../domain/shared/names.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { tenantDecider } from '../domain/tenants/decide.ts';
import type { BatchItem } from '../domain/tenants/events.ts';
import { signReceipt } from '../adapters/keys/audit-key.ts';
import { handleCommand } from './handle.ts';

export interface BatchResult {
  readonly epoch: number;
  readonly stopped: string[];
  readonly indeterminate: { carrier: string; reason: string }[];
  readonly receipt: Record<string, unknown>;
  readonly position: number | null;
}

const describe = (r: Revocation) => {
  switch (r.kind) {
    case 'kill_agent': return `kill_agent ${r.agent}`;
    case 'grant_narrowed': return `grant_narrowed ${r.grantee} ${r.scope}`;
    case 'plugin_removed': return `plugin_removed ${r.plugin}`;
    case 'api_key_revoked': return `api_key_revoked ${r.key}`;
    case 'person_revoked': return `person_revoked ${r.person}`;
  }
};

/**
 * A revocation batch: decide it on the tenant's stream (one epoch step), stop exactly the
 * running jobs it reaches, and answer a receipt signed with the audit key. The fence needs
 * no stop to have landed: a call is refused as soon as the batch is in the log.
 */
export const revocationCommands = (deps: {
  store: EventStore;
  db: Sql;
  clock: Clock;
  auditKey: KeyObject;
  /** Waits until the read models hold the log up to a position. */
  settle: (position: number) => Promise<unknown>;
}) => ({
  async apply(tenant: string, items: readonly BatchItem[]): Promise<E.Either<Refusal, BatchResult>> {
    const { store, db, clock } = deps;
    const now = clock.now();
    const batch = await handleCommand(store, tenantStream(tenant), tenantDecider, { type: 'ApplyRevocations', tenant, items, now }, { tenant });
    if (E.isLeft(batch)) return batch;
    const applied = batch.right.events[0];
    if (!applied || applied.type !== 'RevocationBatchApplied') throw new Error('a revocation batch decided no batch');
    const { epoch, revocations } = applied.data;
    await deps.settle(batch.right.position!);

    const { rows } = await db.query<{ id: string; chain: Chain }>(`SELECT id, chain FROM rm_jobs WHERE tenant = $1 AND status = 'running' ORDER BY id`, [tenant]);
    const stopped: string[] = [];
    let position = batch.right.position;
    for (const job of rows) {
      const reasons = revocations.filter((r) => reaches(r, job.chain)).map(describe);
      if (reasons.length === 0) continue;
      const stop = await handleCommand(store, jobStream(tenant, job.id), jobDecider, { type: 'StopJob', job: job.id, epoch, reasons, now }, { tenant });
      if (E.isRight(stop) && stop.right.events.length > 0) {
        stopped.push(job.id);
        position = stop.right.position ?? position;
      }
    }
    // Jobs here run in this service: there is no remote carrier whose stop cannot be proven.
    const indeterminate: { carrier: string; reason: string }[] = [];
    const receipt = signReceipt(deps.auditKey, { kind: 'revocation_batch', tenant, epoch, revocations, stopped, indeterminate, issued_ms: now });
    const issued = await handleCommand(store, tenantStream(tenant), tenantDecider, { type: 'IssueReceipt', tenant, epoch, receipt, now }, { tenant });
    if (E.isRight(issued)) position = issued.right.position ?? position;
    return E.right({ epoch, stopped, indeterminate, receipt, position });
  },
});

export type RevocationCommands = ReturnType<typeof revocationCommands>;
