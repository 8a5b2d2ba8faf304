import type { BatchItem } from './events.ts';
import { grantsOf, type TenantSettings } from './settings.ts';

const lost = (before: readonly string[], after: readonly string[] | undefined) => before.filter((x) => !(after ?? []).includes(x));
const own = <V>(o: Readonly<Record<string, V>>, k: string): V | undefined => (Object.hasOwn(o, k) ? o[k] : undefined);

/**
 * SPEC §6 "a withdrawn grant is refused at once": the revocation items a settings change
 * implies — every grant scope removed, every role or team a person lost (all of them when the
 * person is dropped), every start role and start team removed. A change that only adds
 * implies none, and stays a plain settings change.
 */
export const withdrawnItems = (before: TenantSettings, after: TenantSettings): BatchItem[] => {
  const items: BatchItem[] = [];
  for (const grantee of Object.keys(before.grants).sort())
    for (const scope of lost(before.grants[grantee]!, grantsOf(after, grantee))) items.push({ kind: 'grant_narrowed', grantee, scope });
  for (const person of Object.keys(before.people).sort()) {
    const was = before.people[person]!;
    const is = own(after.people, person);
    const roles = lost(was.roles, is?.roles);
    const teams = lost(was.teams, is?.teams);
    if (roles.length > 0 || teams.length > 0)
      items.push({ kind: 'person_change', person, ...(roles.length > 0 ? { remove_roles: roles } : {}), ...(teams.length > 0 ? { remove_teams: teams } : {}) });
  }
  for (const role of lost(before.start_roles, after.start_roles)) items.push({ kind: 'start_role_removed', role });
  for (const team of lost(before.start_teams, after.start_teams)) items.push({ kind: 'start_team_removed', team });
  return items;
};
