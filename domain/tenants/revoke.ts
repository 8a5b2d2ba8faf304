import * as E from 'fp-ts/lib/Either.js';
import type { Revocation } from '../envelopes/reaches.ts';
import { startScopes } from '../jobs/scopes.ts';
import { invalid, notFound, type Refusal } from '../shared/refusal.ts';
import type { BatchItem, TenantEvent } from './events.ts';
import type { TenantState } from './state.ts';

type Existing = Extract<TenantState, { exists: true }>;

const without = (xs: readonly string[], drop: readonly string[] | undefined) => xs.filter((x) => !(drop ?? []).includes(x));

/** Whether a person still has a path to start jobs: a start role, or a start team. */
const canStart = (s: Existing['settings'], person: string, people: Existing['settings']['people']) => {
  const p = people[person];
  return p !== undefined && (p.roles.some((r) => s.start_roles.includes(r)) || p.teams.some((t) => s.start_teams.includes(t)));
};

/**
 * Applies a whole batch, then judges it (SPEC §6): a narrowed grant is a revocation only if
 * the grantee no longer reaches the scope by any path, and a person's change only if, after
 * every item, they hold no start role and belong to no start team. One epoch step per batch.
 */
export const decideRevocations = (s: TenantState, items: readonly BatchItem[], now: number): E.Either<Refusal, readonly TenantEvent[]> => {
  if (!s.exists) return E.left(notFound('tenant'));
  if (items.length === 0) return E.left(invalid('revocations', 'a batch needs at least one revocation'));
  const grants: Record<string, string[]> = Object.fromEntries(Object.entries(s.settings.grants).map(([k, v]) => [k, [...v]]));
  const people: Record<string, { roles: string[]; teams: string[] }> = Object.fromEntries(
    Object.entries(s.settings.people).map(([k, v]) => [k, { roles: [...v.roles], teams: [...v.teams] }]),
  );
  const plugins = { ...s.plugins };
  const removed: string[] = [];
  const revocations: Revocation[] = [];
  const narrowed: { grantee: string; scope: string }[] = [];
  const changedPeople = new Set<string>();

  for (const item of items) {
    switch (item.kind) {
      case 'kill_agent':
        revocations.push({ kind: 'kill_agent', agent: item.agent });
        break;
      case 'plugin_removed':
        delete plugins[item.plugin];
        removed.push(item.plugin);
        revocations.push({ kind: 'plugin_removed', plugin: item.plugin });
        break;
      case 'api_key_revoked':
        revocations.push({ kind: 'api_key_revoked', key: item.key });
        break;
      case 'grant_narrowed':
        grants[item.grantee] = without(grants[item.grantee] ?? [], [item.scope]);
        narrowed.push({ grantee: item.grantee, scope: item.scope });
        break;
      case 'person_change': {
        const p = people[item.person] ?? { roles: [], teams: [] };
        people[item.person] = { roles: without(p.roles, item.remove_roles), teams: without(p.teams, item.remove_teams) };
        changedPeople.add(item.person);
        break;
      }
    }
  }
  for (const n of narrowed) {
    const grantee = plugins[n.grantee];
    const reach = grantee ? startScopes(grantee, grants[n.grantee] ?? [], plugins) : [];
    if (!reach.includes(n.scope)) revocations.push({ kind: 'grant_narrowed', grantee: n.grantee, scope: n.scope });
  }
  for (const person of changedPeople)
    if (!canStart(s.settings, person, people) && canStart(s.settings, person, s.settings.people)) revocations.push({ kind: 'person_revoked', person });

  return E.right([
    {
      type: 'RevocationBatchApplied',
      data: { tenant: s.id, epoch: s.authority_epoch + 1, items: [...items], revocations, grants, people, removed_plugins: removed, applied_ms: now },
    },
  ]);
};
