import { hasStartPath, isPerson } from '../tenants/start-paths.ts';
import type { TenantState } from '../tenants/state.ts';

type Existing = Extract<TenantState, { exists: true }>;

/**
 * SPEC §6 "revocations stick": why a start is refused, or null. A killed agent (until its
 * kill is lifted), a removed plugin (until a new install), a revoked api key, and a person
 * with no path to start jobs start nothing — whatever job id they retry.
 */
export const startRevoked = (tenant: Existing, r: { readonly agent: string; readonly plugin: string; readonly subject: string }): string | null => {
  const agent = `${r.plugin}/${r.agent}`;
  if (tenant.killed_agents.includes(agent)) return `kill_agent ${agent}: lifted only by DELETE /v1/tenants/${tenant.id}/kills/${agent}`;
  if (!tenant.plugins.has(r.plugin) && tenant.install_gens.has(r.plugin)) return `plugin_removed ${r.plugin}: it comes back by a new install`;
  if (r.subject.startsWith('apikey:') && tenant.revoked_keys.includes(r.subject.slice('apikey:'.length)))
    return `api_key_revoked ${r.subject.slice('apikey:'.length)}`;
  if (isPerson(tenant.settings, r.subject) && !hasStartPath(tenant.settings, r.subject))
    return `person_revoked ${r.subject}: no start role (start_roles) and no start team (start_teams)`;
  return null;
};
