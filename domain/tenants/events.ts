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

export const tenantEventSchemas = [TenantCreated, TenantSettingsChanged, PluginInstalled] as const;

export type TenantEvent =
  | EventOf<typeof TenantCreated>
  | EventOf<typeof TenantSettingsChanged>
  | EventOf<typeof PluginInstalled>;
