import type { Sql } from '../domain/ports/read-model.ts';

export const getTenant = async (sql: Sql, tenant: string) => {
  const { rows } = await sql.query<{ id: string; settings: unknown; authority_epoch: number; created_ms: number; pending_erasures: string[] }>(
    'SELECT id, settings, authority_epoch, created_ms, pending_erasures FROM rm_tenants WHERE id = $1',
    [tenant],
  );
  const t = rows[0];
  if (!t) return null;
  const { rows: plugins } = await sql.query(
    'SELECT name, install_gen, scopes, functions, agents, startup FROM rm_plugins WHERE tenant = $1 ORDER BY name',
    [tenant],
  );
  const { rows: holds } = await sql.query('SELECT hold AS id, selector, reason, placed_ms::float8 AS placed_ms FROM rm_holds WHERE tenant = $1 ORDER BY placed_ms, hold', [tenant]);
  return { ...t, created_ms: Number(t.created_ms), plugins, holds };
};
