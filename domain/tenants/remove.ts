import * as E from 'fp-ts/lib/Either.js';
import { notFound, refusal, type Refusal } from '../shared/refusal.ts';
import type { TenantEvent } from './events.ts';
import type { TenantState } from './state.ts';

type Existing = Extract<TenantState, { exists: true }>;
type Absent = Extract<TenantState, { exists: false }>;

/** Every later command on a removed tenant: its id is retired (its streams still hold its ciphertext), its audit log stays. */
export const tenantRemoved = (tenant: string | null, removed_ms: number) =>
  refusal('removed', {
    what: 'tenant',
    ...(tenant === null ? {} : { tenant }),
    removed_ms,
    reason: `${tenant === null ? 'the tenant' : `tenant ${tenant}`} was removed and its keys shredded`,
  });

/** What a command on no tenant answers: removed, or never created (`tenant`: its id, when the command names it). */
export const absentTenant = (tenant: string | null, s: Absent): Refusal =>
  s.removed_ms === undefined ? notFound('tenant') : tenantRemoved(tenant, s.removed_ms);

/**
 * A tenant under any legal hold is not removed: removal takes everything, and a hold keeps
 * what it selects. The refusal names the holds to release.
 */
export const removalRefusedUnderHold = (s: Existing): Refusal | null => {
  const holds = Object.keys(s.holds);
  if (holds.length === 0) return null;
  return refusal('held', {
    holds,
    reason:
      holds.length === 1
        ? `tenant ${s.id} is under a legal hold (${holds[0]}), and removing it would destroy what the hold keeps: release the hold (DELETE /v1/tenants/${s.id}/holds/<id>) before removing the tenant`
        : `tenant ${s.id} is under ${holds.length} legal holds (${holds.join(', ')}), and removing it would destroy what they keep: release them (DELETE /v1/tenants/${s.id}/holds/<id>) before removing the tenant`,
  });
};

/**
 * Removes a tenant: one `TenantRemoved`, after which its keys are shredded. A tenant removed
 * already is answered with nothing written (a retry, or one finishing a removal whose
 * shredding was interrupted); one never created is not found.
 */
export const decideRemoval = (c: { readonly tenant: string; readonly now: number }, s: TenantState): E.Either<Refusal, readonly TenantEvent[]> => {
  if (!s.exists) return s.removed_ms === undefined ? E.left(notFound('tenant')) : E.right([]);
  const held = removalRefusedUnderHold(s);
  if (held) return E.left(held);
  return E.right([{ type: 'TenantRemoved', data: { tenant: c.tenant, removed_ms: c.now } }]);
};
