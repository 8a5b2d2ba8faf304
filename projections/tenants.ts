import { tenantStream } from '../domain/shared/names.ts';
import type { Projection } from './projection.ts';

export const tenantsProjection: Projection = {
  name: 'tenants',
  order: 'stream',
  canHandle: ['TenantCreated', 'TenantSettingsChanged', 'PluginInstalled', 'ErasureRequested', 'SubjectKeyShredded', 'RevocationBatchApplied', 'TenantRemoved'],
  tables: ['rm_tenants', 'rm_plugins'],
  async apply(sql, event) {
    switch (event.type) {
      case 'TenantCreated': {
        const d = event.data;
        await sql.query('INSERT INTO rm_tenants (id, settings, authority_epoch, created_ms, stream) VALUES ($1, $2, $3, $4, $5)', [
          d.tenant,
          JSON.stringify(d.settings),
          d.authority_epoch,
          d.created_ms,
          tenantStream(d.tenant),
        ]);
        return;
      }
      case 'TenantSettingsChanged':
        await sql.query('UPDATE rm_tenants SET settings = settings || $2::jsonb WHERE id = $1', [event.data.tenant, JSON.stringify(event.data.changes)]);
        return;
      case 'PluginInstalled': {
        const d = event.data;
        await sql.query(
          `INSERT INTO rm_plugins (tenant, name, install_gen, scopes, functions, agents, startup) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (tenant, name) DO UPDATE SET install_gen = EXCLUDED.install_gen, scopes = EXCLUDED.scopes,
             functions = EXCLUDED.functions, agents = EXCLUDED.agents, startup = EXCLUDED.startup`,
          [d.tenant, d.name, d.install_gen, JSON.stringify(d.scopes), JSON.stringify(d.functions), JSON.stringify(d.agents), d.startup],
        );
        return;
      }
      case 'ErasureRequested':
        await sql.query(`UPDATE rm_tenants SET pending_erasures = pending_erasures || to_jsonb($2::text) WHERE id = $1 AND NOT pending_erasures ? $2`, [
          event.data.tenant,
          event.data.data_subject,
        ]);
        return;
      case 'SubjectKeyShredded':
        await sql.query(`UPDATE rm_tenants SET pending_erasures = pending_erasures - $2::text WHERE id = $1`, [event.data.tenant, event.data.data_subject]);
        return;
      case 'RevocationBatchApplied': {
        const d = event.data;
        await sql.query(
          `UPDATE rm_tenants SET authority_epoch = $2, settings = settings || jsonb_build_object('grants', $3::jsonb, 'people', $4::jsonb)
             || CASE WHEN $5::jsonb IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('start_roles', $5::jsonb) END
             || CASE WHEN $6::jsonb IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('start_teams', $6::jsonb) END WHERE id = $1`,
          [
            d.tenant,
            d.epoch,
            JSON.stringify(d.grants),
            JSON.stringify(d.people),
            d.start_roles ? JSON.stringify(d.start_roles) : null,
            d.start_teams ? JSON.stringify(d.start_teams) : null,
          ],
        );
        if (d.removed_plugins.length > 0) await sql.query('DELETE FROM rm_plugins WHERE tenant = $1 AND name = ANY($2::text[])', [d.tenant, d.removed_plugins]);
        return;
      }
      case 'TenantRemoved':
        await sql.query('UPDATE rm_tenants SET removed_ms = $2, pending_erasures = $3::jsonb WHERE id = $1', [event.data.tenant, event.data.removed_ms, '[]']);
        await sql.query('DELETE FROM rm_plugins WHERE tenant = $1', [event.data.tenant]);
        return;
      default:
        return;
    }
  },
};
