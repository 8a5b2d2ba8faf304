import type { TenantSettings } from './settings.ts';

/** A tenant with no start roles and no start teams lets any subject start jobs (SPEC §6). */
/** The settings start paths are judged on. */
export type StartPaths = Pick<TenantSettings, 'people' | 'start_roles' | 'start_teams'>;

export const startsRestricted = (s: StartPaths): boolean => s.start_roles.length > 0 || s.start_teams.length > 0;

/**
 * Whose start is judged by start paths: a person. `user:` subjects are people, and so is any
 * subject the tenant lists under `people`; teams, api keys, routines and webhooks are not.
 */
export const isPerson = (s: StartPaths, subject: string): boolean => subject.startsWith('user:') || Object.hasOwn(s.people, subject);

/** Whether a person has a path to start jobs: a start role, or a start team (or no restriction at all). */
export const hasStartPath = (s: StartPaths, person: string): boolean => {
  if (!startsRestricted(s)) return true;
  const p = Object.hasOwn(s.people, person) ? s.people[person] : undefined;
  return p !== undefined && (p.roles.some((r) => s.start_roles.includes(r)) || p.teams.some((t) => s.start_teams.includes(t)));
};

/** A subject the start paths leave out: a person with no path to start jobs. */
export const withoutStartPath = (s: StartPaths, subject: string): boolean => isPerson(s, subject) && !hasStartPath(s, subject);
