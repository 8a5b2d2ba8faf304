import { describe, expect, it } from 'vitest';
import { specify } from '../../support/decider.ts';
import { tenantDecider, type TenantCommand } from '../../../domain/tenants/decide.ts';
import type { TenantEvent } from '../../../domain/tenants/events.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';

const { given } = specify(tenantDecider);

const created: TenantEvent = { type: 'TenantCreated', data: { tenant: 'acme', settings: defaultSettings(), authority_epoch: 1, created_ms: 1 } };

describe('tenant decider', () => {
  it('creates a tenant with the SPEC §3 defaults and epoch 1', () => {
    given([])
      .when({ type: 'CreateTenant', tenant: 'acme', settings: {}, now: 5 })
      .then([{ type: 'TenantCreated', data: { tenant: 'acme', settings: defaultSettings(), authority_epoch: 1, created_ms: 5 } }]);
    const s = defaultSettings();
    expect([s.default_end_days, s.max_end_days, s.caps.records, s.caps.bytes, s.retention_days]).toEqual([90, 365, 5000, 8 * 1024 * 1024, 365]);
  });

  it('merges given settings over the defaults', () => {
    const then = given([])
      .when({ type: 'CreateTenant', tenant: 'acme', settings: { max_end_days: 30, default_end_days: 10 }, now: 5 })
      .accepted();
    expect(then[0]!.type === 'TenantCreated' && then[0]!.data).toMatchObject({ settings: { max_end_days: 30, default_end_days: 10, retention_days: 365 } });
  });

  it('refuses a second creation', () => {
    given([created]).when({ type: 'CreateTenant', tenant: 'acme', settings: {}, now: 5 }).then({ error: 'already_exists', tenant: 'acme' });
  });

  it('refuses a default end beyond the maximum, at creation and on change', () => {
    given([])
      .when({ type: 'CreateTenant', tenant: 'acme', settings: { default_end_days: 400 }, now: 1 })
      .then({ error: 'invalid', field: 'settings.default_end_days', reason: 'must not exceed max_end_days (365)' });
    given([created])
      .when({ type: 'ChangeTenantSettings', tenant: 'acme', changes: { max_end_days: 30 }, now: 1 })
      .refused();
  });

  it('changes settings of an existing tenant only', () => {
    given([]).when({ type: 'ChangeTenantSettings', tenant: 'acme', changes: {}, now: 1 }).then({ error: 'not_found', what: 'tenant' });
    given([created])
      .when({ type: 'ChangeTenantSettings', tenant: 'acme', changes: { retention_days: 7 }, now: 9 })
      .then([{ type: 'TenantSettingsChanged', data: { tenant: 'acme', changes: { retention_days: 7 }, changed_ms: 9 } }]);
  });

  it('installs a plugin with all scope kinds by default; an upgrade keeps its install generation (SPEC §6)', () => {
    const install = (): TenantCommand => ({ type: 'InstallPlugin', tenant: 'acme', name: 'notes', functions: ['save'], agents: ['scribe'], now: 3 });
    const first = given([created]).when(install()).accepted();
    expect(first[0]!.data).toMatchObject({ install_gen: 1, scopes: ['agent', 'project', 'tenant'], startup: null });
    const again = given([created, ...first])
      .when({ ...install(), scopes: ['tenant'] } as TenantCommand)
      .accepted();
    expect(again[0]!.data).toMatchObject({ install_gen: 1, scopes: ['tenant'] });
  });

  it('refuses a startup function the plugin does not declare, and duplicate names', () => {
    const base = { type: 'InstallPlugin' as const, tenant: 'acme', name: 'notes', agents: ['a'], now: 1 };
    given([created])
      .when({ ...base, functions: ['save'], startup: 'boot' })
      .then({ error: 'invalid', field: 'startup', reason: "must name one of the plugin's functions" });
    given([created])
      .when({ ...base, functions: ['save', 'save'] })
      .then({ error: 'invalid', field: 'functions', reason: '"save" is listed twice' });
    given([])
      .when({ ...base, functions: [] })
      .then({ error: 'not_found', what: 'tenant' });
  });
});
