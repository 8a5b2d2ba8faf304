import * as t from 'io-ts';
import { defineEvent, type EventOf } from '../events/schema.ts';
import { TenantSettingsCodec, TenantSettingsPatchCodec } from './settings.ts';

export const RecordScopeKind = t.keyof({ agent: null, project: null, tenant: null });
export type RecordScopeKind = t.TypeOf<typeof RecordScopeKind>;

export const TenantCreated = defineEvent(
  'TenantCreated',
  1,
  t.type({ tenant: t.string, settings: TenantSettingsCodec, authority_epoch: t.number, created_ms: t.number }),
);

export const TenantSettingsChanged = defineEvent(
  'TenantSettingsChanged',
  1,
  t.type({ tenant: t.string, changes: TenantSettingsPatchCodec, changed_ms: t.number }),
);

export const PluginInstalled = defineEvent(
  'PluginInstalled',
  1,
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
);

const BatchItem = t.union([
  t.type({ kind: t.literal('kill_agent'), agent: t.string }),
  t.type({ kind: t.literal('grant_narrowed'), grantee: t.string, scope: t.string }),
  t.type({ kind: t.literal('plugin_removed'), plugin: t.string }),
  t.type({ kind: t.literal('api_key_revoked'), key: t.string }),
  t.intersection([t.type({ kind: t.literal('person_change'), person: t.string }), t.partial({ remove_roles: t.array(t.string), remove_teams: t.array(t.string) })]),
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
 */
export const RevocationBatchApplied = defineEvent(
  'RevocationBatchApplied',
  1,
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
);

/** The signed receipt of a batch: which jobs it stopped, which carriers it could not prove stopped. */
export const RevocationReceiptIssued = defineEvent(
  'RevocationReceiptIssued',
  1,
  t.type({ tenant: t.string, epoch: t.number, receipt: t.UnknownRecord, issued_ms: t.number }),
);

export const tenantEventSchemas = [TenantCreated, TenantSettingsChanged, PluginInstalled, RevocationBatchApplied, RevocationReceiptIssued] as const;

export type TenantEvent =
  | EventOf<typeof TenantCreated>
  | EventOf<typeof TenantSettingsChanged>
  | EventOf<typeof PluginInstalled>
  | EventOf<typeof RevocationBatchApplied>
  | EventOf<typeof RevocationReceiptIssued>;
