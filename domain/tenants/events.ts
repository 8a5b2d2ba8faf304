import * as t from 'io-ts';
import { defineEvent, type EventOf } from '../events/schema.ts';
import { TenantSettingsCodec, TenantSettingsPatchCodec } from './settings.ts';

export const RecordScopeKind = t.keyof({ agent: null, project: null, tenant: null });
export type RecordScopeKind = t.TypeOf<typeof RecordScopeKind>;

/** v1 data is v2 data: each v2 only added an optional field. */
const unchanged = { 1: (data: unknown) => data };
/** v2 data is v3 data: v3 only added the optional offload settings; v4 only the optional `audit_public`. */
const unchangedTo4 = { 1: (data: unknown) => data, 2: (data: unknown) => data, 3: (data: unknown) => data };

/** v2: settings may carry `max_depth`; v3: `offload_tokens` and `offload_ceiling`; v4: `audit_public`. */
export const TenantCreated = defineEvent(
  'TenantCreated',
  4,
  t.type({ tenant: t.string, settings: TenantSettingsCodec, authority_epoch: t.number, created_ms: t.number }),
  unchangedTo4,
);

/** v2: changes may carry `max_depth`; v3: `offload_tokens` and `offload_ceiling`; v4: `audit_public`. */
export const TenantSettingsChanged = defineEvent(
  'TenantSettingsChanged',
  4,
  t.type({ tenant: t.string, changes: TenantSettingsPatchCodec, changed_ms: t.number }),
  unchangedTo4,
);

/** v2: the optional `request_id` of the install, so a retry answers the earlier answer. */
export const PluginInstalled = defineEvent(
  'PluginInstalled',
  2,
  t.intersection([
    t.type({
      tenant: t.string,
      name: t.string,
      install_gen: t.number,
      scopes: t.array(RecordScopeKind),
      functions: t.array(t.string),
      agents: t.array(t.string),
      startup: t.union([t.string, t.null]),
      installed_ms: t.number,
    }),
    t.partial({ request_id: t.string }),
  ]),
  unchanged,
);

/** A lifted kill (SPEC §6): the only way a killed agent starts jobs again. */
export const AgentKillLifted = defineEvent('AgentKillLifted', 1, t.type({ tenant: t.string, agent: t.string, lifted_ms: t.number }));

const BatchItem = t.union([
  t.type({ kind: t.literal('kill_agent'), agent: t.string }),
  t.type({ kind: t.literal('grant_narrowed'), grantee: t.string, scope: t.string }),
  t.type({ kind: t.literal('plugin_removed'), plugin: t.string }),
  t.type({ kind: t.literal('api_key_revoked'), key: t.string }),
  t.intersection([
    t.type({ kind: t.literal('person_change'), person: t.string }),
    t.partial({ remove_roles: t.array(t.string), remove_teams: t.array(t.string) }),
  ]),
  // Only a settings change implies these (domain/tenants/withdrawn.ts).
  t.type({ kind: t.literal('start_role_removed'), role: t.string }),
  t.type({ kind: t.literal('start_team_removed'), team: t.string }),
]);
export type BatchItem = t.TypeOf<typeof BatchItem>;

const RevocationCodec = t.union([
  t.type({ kind: t.literal('kill_agent'), agent: t.string }),
  t.type({ kind: t.literal('grant_narrowed'), grantee: t.string, scope: t.string }),
  t.type({ kind: t.literal('plugin_removed'), plugin: t.string }),
  t.type({ kind: t.literal('api_key_revoked'), key: t.string }),
  t.type({ kind: t.literal('person_revoked'), person: t.string }),
]);

/**
 * A revocation batch (SPEC §6): the items as asked, the settings they left, the revocations
 * they amount to once the whole batch is applied, and the one epoch step they share.
 * v2: items may be the start-role and start-team removals a settings change implies, the
 * batch carries the start roles and teams it left, and the `request_id` it answered.
 */
export const RevocationBatchApplied = defineEvent(
  'RevocationBatchApplied',
  2,
  t.intersection([
    t.type({
      tenant: t.string,
      epoch: t.number,
      items: t.array(BatchItem),
      revocations: t.array(RevocationCodec),
      grants: t.record(t.string, t.array(t.string)),
      people: t.record(t.string, t.type({ roles: t.array(t.string), teams: t.array(t.string) })),
      removed_plugins: t.array(t.string),
      applied_ms: t.number,
    }),
    t.partial({ start_roles: t.array(t.string), start_teams: t.array(t.string), request_id: t.string }),
  ]),
  unchanged,
);

/** The signed receipt of a batch: which jobs it stopped, which carriers it could not prove stopped. */
export const RevocationReceiptIssued = defineEvent(
  'RevocationReceiptIssued',
  1,
  t.type({ tenant: t.string, epoch: t.number, receipt: t.UnknownRecord, issued_ms: t.number }),
);

/**
 * A tenant removed (its data crypto-shredded): every data and subject key of the tenant is
 * deleted after this, so nothing sealed for it can be read again, in any copy of the log. Its
 * id is never used again; its audit log stays.
 */
export const TenantRemoved = defineEvent('TenantRemoved', 1, t.type({ tenant: t.string, removed_ms: t.number }));

export const tenantEventSchemas = [
  TenantCreated,
  TenantSettingsChanged,
  PluginInstalled,
  RevocationBatchApplied,
  RevocationReceiptIssued,
  AgentKillLifted,
  TenantRemoved,
] as const;

export type TenantEvent =
  | EventOf<typeof TenantCreated>
  | EventOf<typeof TenantSettingsChanged>
  | EventOf<typeof PluginInstalled>
  | EventOf<typeof RevocationBatchApplied>
  | EventOf<typeof RevocationReceiptIssued>
  | EventOf<typeof AgentKillLifted>
  | EventOf<typeof TenantRemoved>;
