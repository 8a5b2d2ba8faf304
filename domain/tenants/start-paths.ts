import type { TenantSettings } from './settings.ts';

/** A tenant with no start roles and no start teams lets any subject start jobs (SPEC §6). */
export const startsRestricted = (s: TenantSettings): boolean => s.start_roles.length > 0 || s.start_teams.length > 0;

/**
 * Whose start is judged by start paths: a person. `user:` subjects are people, and so is any
 * subject the tenant lists under `people`; teams, api keys, routines and webhooks are not.
 */
export const isPerson = (s: TenantSettings, subject: string): boolean => subject.startsWith('user:') || Object.hasOwn(s.people, subject);

/** Whether a person has a path to start jobs: a start role, or a start team (or no restriction at all). */
export const hasStartPath = (s: TenantSettings, person: string): boolean => {
  if (!startsRestricted(s)) return true;
  const p = Object.hasOwn(s.people, person) ? s.people[person] : undefined;
  return p !== undefined && (p.roles.some((r) => s.start_roles.includes(r)) || p.teams.some((t) => s.start_teams.includes(t)));
};
