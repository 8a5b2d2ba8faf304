import * as E from 'fp-ts/lib/Either.js';
import type { Revocation } from '../envelopes/reaches.ts';
import { startScopes } from '../jobs/scopes.ts';
import { invalid, notFound, refusal, type Refusal } from '../shared/refusal.ts';
import type { BatchItem, TenantEvent } from './events.ts';
import type { TenantSettings } from './settings.ts';
import { isPerson, withoutStartPath } from './start-paths.ts';
import type { Plugins, TenantState } from './state.ts';
import { KeyedMap } from '../shared/keyed-map.ts';
import { batchDigest } from './request-digest.ts';
import { subjectProblem } from '../shared/subjects.ts';

type Existing = Extract<TenantState, { exists: true }>;
interface Authority {
  readonly settings: TenantSettings;
  readonly plugins: Plugins;
}
type BatchApplied = Extract<TenantEvent, { type: 'RevocationBatchApplied' }>;

const without = (xs: readonly string[], drop: readonly string[] | undefined) => xs.filter((x) => !(drop ?? []).includes(x));
const own = <V>(o: Readonly<Record<string, V>>, k: string): V | undefined => (Object.hasOwn(o, k) ? o[k] : undefined);

/** The settings and plugins a batch leaves: every item applied, in order. */
export const applyItems = (before: Authority, items: readonly BatchItem[]): Authority & { removed: string[] } => {
  // Maps, not objects: a name like "__proto__" stays a name.
  const grants = new Map(Object.entries(before.settings.grants).map(([k, v]) => [k, [...v]]));
  const people = new Map(Object.entries(before.settings.people).map(([k, v]) => [k, { roles: [...v.roles], teams: [...v.teams] }]));
  let startRoles = [...before.settings.start_roles];
  let startTeams = [...before.settings.start_teams];
  // A persistent map: a removal copies its path, never the tenant's other plugins.
  const plugins = new KeyedMap(before.plugins.map);
  const removed: string[] = [];
  for (const item of items) {
    switch (item.kind) {
      case 'plugin_removed':
        plugins.delete(item.plugin);
        removed.push(item.plugin);
        break;
      case 'grant_narrowed':
        grants.set(item.grantee, without(grants.get(item.grantee) ?? [], [item.scope]));
        break;
      case 'person_change': {
        const p = people.get(item.person) ?? { roles: [], teams: [] };
        people.set(item.person, { roles: without(p.roles, item.remove_roles), teams: without(p.teams, item.remove_teams) });
        break;
      }
      case 'start_role_removed':
        startRoles = without(startRoles, [item.role]);
        break;
      case 'start_team_removed':
        startTeams = without(startTeams, [item.team]);
        break;
      case 'kill_agent':
      case 'api_key_revoked':
        break;
    }
  }
  const settings = {
    ...before.settings,
    grants: Object.fromEntries(grants),
    people: Object.fromEntries(people),
    start_roles: startRoles,
    start_teams: startTeams,
  };
  return { settings, plugins, removed };
};

/**
 * Judges a batch once it is whole (SPEC §6): a narrowed grant is a revocation only if the
 * grantee no longer reaches the scope by any path; a person is revoked only if they had a
 * path to start jobs before and have none after.
 */
export const judge = (before: Authority, after: Authority, items: readonly BatchItem[], subjects: readonly string[] = []): Revocation[] => {
  const revocations: Revocation[] = [];
  for (const item of items) {
    if (item.kind === 'kill_agent') revocations.push({ kind: 'kill_agent', agent: item.agent });
    if (item.kind === 'plugin_removed') revocations.push({ kind: 'plugin_removed', plugin: item.plugin });
    if (item.kind === 'api_key_revoked') revocations.push({ kind: 'api_key_revoked', key: item.key });
  }
  const narrowed = new Set<string>();
  for (const item of items) {
    if (item.kind !== 'grant_narrowed' || narrowed.has(`${item.grantee}\n${item.scope}`)) continue;
    narrowed.add(`${item.grantee}\n${item.scope}`);
    const grantee = after.plugins.get(item.grantee);
    const reach = grantee ? startScopes(grantee, own(after.settings.grants, item.grantee) ?? [], after.plugins) : [];
    if (!reach.includes(item.scope)) revocations.push({ kind: 'grant_narrowed', grantee: item.grantee, scope: item.scope });
  }
  const people = new Set([
    ...Object.keys(before.settings.people),
    ...Object.keys(after.settings.people),
    ...items.flatMap((i) => (i.kind === 'person_change' ? [i.person] : [])),
    // Subjects of running jobs the tenant does not list (a `user:` subject): turning start
    // restrictions on takes their path away too.
    ...subjects.filter((x) => isPerson(before.settings, x) || isPerson(after.settings, x)),
  ]);
  for (const person of [...people].sort())
    // "May start" before and not after: listing a subject under `people` makes it a person too.
    if (!withoutStartPath(before.settings, person) && withoutStartPath(after.settings, person)) revocations.push({ kind: 'person_revoked', person });
  return revocations;
};

/** The one epoch step of a batch, with the settings it leaves. */
export const batchApplied = (
  s: Existing,
  items: readonly BatchItem[],
  after: Authority & { removed: readonly string[] },
  now: number,
  requestId: string | undefined,
  subjects: readonly string[] = [],
): BatchApplied => ({
  type: 'RevocationBatchApplied',
  data: {
    tenant: s.id,
    epoch: s.authority_epoch + 1,
    items: [...items],
    revocations: judge(s, after, items, subjects),
    grants: after.settings.grants,
    people: after.settings.people,
    start_roles: after.settings.start_roles,
    start_teams: after.settings.start_teams,
    removed_plugins: [...after.removed],
    applied_ms: now,
    ...(requestId === undefined ? {} : { request_id: requestId }),
  },
});

/**
 * A request id already answered: by the same request (true: answer the earlier answer), or
 * a conflict — another kind of request, or the same kind asking something else.
 */
export const earlierAnswer = (s: Existing, requestId: string | undefined, kind: 'plugin' | 'revocations', digest: string): E.Either<Refusal, boolean> => {
  if (requestId === undefined) return E.right(false);
  const earlier = s.requests.get(requestId);
  if (earlier === undefined) return E.right(false);
  if (earlier.kind === kind && earlier.digest === digest) return E.right(true);
  const answered = earlier.kind === 'plugin' ? `a plugin install (${earlier.plugin.name})` : `a revocation batch (epoch ${earlier.epoch})`;
  return E.left(refusal('already_exists', { what: 'request_id', request_id: requestId, reason: `the request id answered another request: ${answered}` }));
};

/**
 * Applies a whole batch, then judges it (SPEC §6). One epoch step per batch; a batch whose
 * request id was answered before writes nothing (the handler answers the earlier answer).
 */
export const decideRevocations = (s: TenantState, items: readonly BatchItem[], now: number, requestId?: string): E.Either<Refusal, readonly TenantEvent[]> => {
  if (!s.exists) return E.left(notFound('tenant'));
  const retried = earlierAnswer(s, requestId, 'revocations', batchDigest(items));
  if (E.isLeft(retried)) return retried;
  if (retried.right) return E.right([]);
  if (items.length === 0) return E.left(invalid('revocations', 'a batch needs at least one revocation'));
  // A person is named in the one spelling their jobs and `people` keys use.
  for (const [i, item] of items.entries()) {
    const why = item.kind === 'person_change' ? subjectProblem(item.person) : null;
    if (why !== null) return E.left(invalid(`revocations[${i}].person`, why));
  }
  return E.right([batchApplied(s, items, applyItems(s, items), now, requestId)]);
};
