import { refusal, type Refusal } from '../shared/refusal.ts';
import type { RecordScopeKind } from '../tenants/events.ts';
import type { TenantSettings } from '../tenants/settings.ts';
import { scopeKind } from './rules.ts';
import { agentMayUse } from './visibility.ts';

/**
 * The put rules that depend on who writes and on the record, not on the request's body:
 * checks 4, 7, 8 and 9 of SPEC §4. The put decider and a returned record's `writable` both
 * use these, so `writable: true` never promises a put that one of them refuses.
 */
export interface WriterIdentity {
  readonly agent: string;
  /** The plugin the writing agent belongs to. */
  readonly plugin: string;
  readonly purpose: string;
  readonly data_subject: string | null;
}

/** Check 4: the plugin declared the scope's kind; an agent scope belongs to its agent. */
export const checkScope = (pluginScopes: readonly RecordScopeKind[], w: Pick<WriterIdentity, 'agent'>, scope: string): Refusal | null =>
  pluginScopes.includes(scopeKind(scope) as RecordScopeKind) && agentMayUse(w, scope) ? null : refusal('scope');

/** Check 7: a record is written again only for the purpose it was written for. */
export const checkPurpose = (recordPurpose: string | undefined, w: Pick<WriterIdentity, 'purpose'>): Refusal | null =>
  recordPurpose !== undefined && recordPurpose !== w.purpose ? refusal('purpose') : null;

/** Check 8: a record's first version cannot be closed. */
export const checkClosed = (exists: boolean, closed: boolean): Refusal | null => (!exists && closed ? refusal('closed') : null);

/** Check 9's effective kind: a data subject's job, the request, or any earlier version makes it `person`. */
export const isPersonWrite = (w: Pick<WriterIdentity, 'data_subject'>, requested: 'work' | 'person' | null, everPerson: boolean) =>
  w.data_subject !== null || requested === 'person' || everPerson;

const personMemoryOn = (settings: TenantSettings, w: WriterIdentity) =>
  settings.person_memory.some((p) => p.purpose === w.purpose && (p.agent === w.agent || p.agent === `${w.plugin}/${w.agent}`));

/** Check 9: a person write needs memory about people on for {agent, purpose} and an allowed scope. */
export const checkPeople = (settings: TenantSettings, w: WriterIdentity, scope: string): Refusal | null => {
  if (!personMemoryOn(settings, w))
    return refusal('person_off', {
      reason: `memory about people is off for agent "${w.agent}" and purpose "${w.purpose}": the tenant must add {"agent": "${w.agent}", "purpose": "${w.purpose}"} to its person_memory setting`,
    });
  const own = `agent:${w.agent}`;
  if (scope !== own && !settings.person_shared_scopes.includes(scope))
    return refusal('person_scope', {
      reason: `records about people go in the agent's own scope (${own}); to keep them in ${scope} the tenant must add "${scope}" to its person_shared_scopes setting`,
    });
  return null;
};

/** What `writable` looks at in an existing record: its newest version's purpose and kind. */
export interface WritableRecord {
  readonly scope: string;
  readonly purpose: string;
  readonly subject_kind: 'work' | 'person';
}

/**
 * The refusal a put of the record's next version would meet at checks 4, 7, 8 or 9, with the
 * request's defaults (not closed, no `subject_kind`), or null when it would pass them. A
 * record stays `person` once a version was, so the newest version's kind is the record's.
 */
export const nextPutRefusal = (settings: TenantSettings, pluginScopes: readonly RecordScopeKind[], w: WriterIdentity, record: WritableRecord): Refusal | null =>
  checkScope(pluginScopes, w, record.scope) ??
  checkPurpose(record.purpose, w) ??
  checkClosed(true, false) ??
  (isPersonWrite(w, null, record.subject_kind === 'person') ? checkPeople(settings, w, record.scope) : null);
