import type { TenantSettings } from '../tenants/settings.ts';

export interface Reader {
  readonly agent: string;
  readonly plugin: string;
  readonly purpose: string;
}

export interface Visible {
  readonly scope: string;
  readonly purpose: string;
  readonly subject_kind: 'work' | 'person';
}

/** Agent scopes are read and written only by that agent's jobs (SPEC §4 check 4). */
export const agentMayUse = (reader: Pick<Reader, 'agent'>, scope: string) => !scope.startsWith('agent:') || scope === `agent:${reader.agent}`;

/**
 * SPEC §4 visibility: a job reads records of its purpose or of one the tenant maps as
 * compatible, and work records written without a purpose; a job without a purpose reads
 * only records written without one.
 */
export const mayRead = (reader: Reader, record: Visible, settings: TenantSettings): boolean => {
  if (!agentMayUse(reader, record.scope)) return false;
  if (reader.purpose === '') return record.purpose === '';
  if (record.purpose === reader.purpose) return true;
  if (record.purpose === '') return record.subject_kind === 'work';
  return (settings.compatible_purposes[reader.purpose] ?? []).includes(record.purpose);
};

/** True when some wall of the tenant has one side in `held` and the other in `incoming`. */
export const crossesWall = (walls: TenantSettings['label_walls'], held: ReadonlySet<string>, incoming: readonly string[]) =>
  walls.some(([a, b]) => (held.has(a) && incoming.includes(b)) || (held.has(b) && incoming.includes(a)));

export const MEMORY_TAINT = 'memory';
