import * as t from 'io-ts';
import { nullable } from '../events/schema.ts';
import { subjectProblem } from '../shared/subjects.ts';

const requiredSettings = {
  default_end_days: t.number,
  max_end_days: t.number,
  caps: t.type({ records: t.number, bytes: t.number }),
  retention_days: t.number,
  person_memory: t.array(t.type({ agent: t.string, purpose: t.string })),
  person_shared_scopes: t.array(t.string),
  compatible_purposes: t.record(t.string, t.array(t.string)),
  label_walls: t.array(t.tuple([t.string, t.string])),
  grants: t.record(t.string, t.array(t.string)),
  start_roles: t.array(t.string),
  start_teams: t.array(t.string),
  people: t.record(t.string, t.type({ roles: t.array(t.string), teams: t.array(t.string) })),
};
/** Added after release: absent in older events, where it means none. */
const optionalSettings = {
  max_depth: nullable(t.number),
  /** SPEC §13: the offload threshold of a job whose start sets none, and the most any job may set (tokens). */
  offload_tokens: nullable(t.number),
  offload_ceiling: nullable(t.number),
  /** SPEC §9 tiles: "hashes" serves the checkpoint and hash tiles without a key; absent, null or "none": only to the admin and auditors. */
  audit_public: nullable(t.keyof({ none: null, hashes: null })),
};

/** SPEC §3 and §6: a tenant's settings as they travel in events. */
export const TenantSettingsCodec = t.intersection([t.type(requiredSettings), t.partial(optionalSettings)]);
export type TenantSettings = t.TypeOf<typeof TenantSettingsCodec>;

export const TenantSettingsPatchCodec = t.partial({ ...requiredSettings, ...optionalSettings });
export type TenantSettingsPatch = t.TypeOf<typeof TenantSettingsPatchCodec>;

export const MIB = 1024 * 1024;

export const defaultSettings = (): TenantSettings => ({
  default_end_days: 90,
  max_end_days: 365,
  caps: { records: 5000, bytes: 8 * MIB },
  retention_days: 365,
  person_memory: [],
  person_shared_scopes: [],
  compatible_purposes: {},
  label_walls: [],
  grants: {},
  start_roles: [],
  start_teams: [],
  people: {},
  max_depth: null,
});

/**
 * The grants the tenant gave one plugin (none: empty). Own entries only: a plugin may be named
 * `constructor` or `__proto__`, and a plain object answers Object.prototype's members for them.
 */
export const grantsOf = (settings: Pick<TenantSettings, 'grants'>, plugin: string): readonly string[] =>
  Object.hasOwn(settings.grants, plugin) ? (settings.grants[plugin] ?? []) : [];

export const applyPatch = (settings: TenantSettings, patch: TenantSettingsPatch): TenantSettings => ({
  ...settings,
  ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
});

/** Rules that span fields, which a schema for one field cannot see. */
export const settingsProblem = (s: TenantSettings): { field: string; reason: string } | null => {
  if (s.default_end_days > s.max_end_days) return { field: 'settings.default_end_days', reason: `must not exceed max_end_days (${s.max_end_days})` };
  for (const person of Object.keys(s.people)) {
    const why = subjectProblem(person);
    if (why !== null) return { field: 'settings.people', reason: `${JSON.stringify(person)}: ${why}` };
  }
  if (s.offload_tokens != null && s.offload_ceiling != null && s.offload_tokens > s.offload_ceiling)
    return { field: 'settings.offload_tokens', reason: `must not exceed offload_ceiling (${s.offload_ceiling})` };
  const selfWall = s.label_walls.findIndex(([a, b]) => a === b);
  if (selfWall >= 0) return { field: `settings.label_walls[${selfWall}]`, reason: 'a wall is a pair of two different labels' };
  return null;
};
