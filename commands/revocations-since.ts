import * as E from 'fp-ts/lib/Either.js';
import { assertUntampered, type EventStore } from '../domain/ports/event-store.ts';
import type { Chain } from '../domain/envelopes/block.ts';
import { reaches, type Revocation } from '../domain/envelopes/reaches.ts';
import { eventRegistry } from '../domain/events/registry.ts';
import { tenantStream } from '../domain/shared/names.ts';
import { tenantDecider } from '../domain/tenants/decide.ts';
import { foldTenant, type TenantState, type TenantStreamEvent } from '../domain/tenants/state.ts';

/** How a revocation is named in a receipt, a stop's reasons and a refusal. */
export const describeRevocation = (r: Revocation): string => {
  switch (r.kind) {
    case 'kill_agent':
      return `kill_agent ${r.agent}`;
    case 'grant_narrowed':
      return `grant_narrowed ${r.grantee} ${r.scope}`;
    case 'plugin_removed':
      return `plugin_removed ${r.plugin}`;
    case 'api_key_revoked':
      return `api_key_revoked ${r.key}`;
    case 'person_revoked':
      return `person_revoked ${r.person}`;
  }
};

export interface TenantLog {
  /** The tenant as the log holds it below the position asked for. */
  readonly state: TenantState;
  /** Every batch below that position, with its epoch. */
  readonly batches: readonly { readonly epoch: number; readonly revocations: readonly Revocation[] }[];
}

/**
 * The tenant's stream read from the log (never a read model, which may lag), folded up to
 * but not including `before` (a global position; all of it when omitted).
 */
export const tenantLog = async (store: EventStore, tenant: string, before = Number.POSITIVE_INFINITY): Promise<TenantLog> => {
  const batches: { epoch: number; revocations: Revocation[] }[] = [];
  const events: TenantStreamEvent[] = [];
  for (const r of await store.readStream(tenantStream(tenant))) {
    if (r.position >= before) break;
    assertUntampered(r);
    const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
    if (E.isLeft(decoded)) throw new Error(`tenant ${tenant} revision ${r.revision}: ${decoded.left}`);
    const e = decoded.right as TenantStreamEvent;
    events.push(e);
    if (e.type === 'RevocationBatchApplied') batches.push({ epoch: e.data.epoch, revocations: e.data.revocations });
  }
  return { state: foldTenant(tenantDecider.initialState(), events), batches };
};

/**
 * What in the log stops a job whose envelope chain this is: the revocations of every batch
 * after the chain's epoch that reach it (the fence's rule, SPEC §6), with the latest such
 * epoch. Empty reasons: nothing does.
 */
export const reachedSince = (log: TenantLog, chain: Chain): { epoch: number; reasons: string[] } => {
  const since = chain[0]?.block.epoch ?? 0;
  let epoch = 0;
  const reasons: string[] = [];
  for (const b of log.batches) {
    if (b.epoch <= since) continue;
    const hit = b.revocations.filter((r) => reaches(r, chain));
    if (hit.length === 0) continue;
    epoch = Math.max(epoch, b.epoch);
    reasons.push(...hit.map(describeRevocation));
  }
  return { epoch, reasons };
};
