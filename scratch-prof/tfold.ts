import { evolveTenant, foldTenant, initialTenantState } from '../domain/tenants/state.ts';
import { defaultSettings } from '../domain/tenants/settings.ts';
const events: any[] = [{ type: 'TenantCreated', data: { tenant: 'acme', settings: defaultSettings(), authority_epoch: 1, created_ms: 1 } }];
for (let i = 0; i < 5000; i++) {
  events.push({ type: 'PluginInstalled', data: { tenant: 'acme', name: `g${i}`, install_gen: 1000 + i, scopes: [], functions: ['f'], agents: ['a'], startup: null, installed_ms: 1 } });
  if (i % 100 === 99) events.push({ type: 'RevocationBatchApplied', data: { tenant: 'acme', epoch: 2 + i, items: [{ kind: 'kill_agent', agent: `g${i}/a` }], revocations: [], removed_plugins: [], grants: {}, people: {} } });
}
for (let r = 0; r < 10; r++) {
  let t = performance.now(); foldTenant(initialTenantState(), events); console.log('foldTenant', (performance.now() - t).toFixed(1));

}
