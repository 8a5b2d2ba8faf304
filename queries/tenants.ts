import type { Sql } from '../domain/ports/read-model.ts';
import { notFound, type Refusal } from '../domain/shared/refusal.ts';
import { tenantRemoved } from '../domain/tenants/remove.ts';

export const getTenant = async (sql: Sql, tenant: string) => {
  const { rows } = await sql.query<{ id: string; settings: unknown; authority_epoch: number; created_ms: number; pending_erasures: string[] }>(
    'SELECT id, settings, authority_epoch, created_ms, pending_erasures FROM rm_tenants WHERE id = $1 AND removed_ms IS NULL',
    [tenant],
  );
  const t = rows[0];
  if (!t) return null;
  const { rows: plugins } = await sql.query('SELECT name, install_gen, scopes, functions, agents, startup FROM rm_plugins WHERE tenant = $1 ORDER BY name', [
    tenant,
  ]);
  const { rows: holds } = await sql.query(
    'SELECT hold AS id, selector, reason, placed_ms::float8 AS placed_ms FROM rm_holds WHERE tenant = $1 ORDER BY placed_ms, hold',
    [tenant],
  );
  return { ...t, created_ms: Number(t.created_ms), plugins, holds };
};

/**
 * "Was this tenant ever created", as the read model knows it: a removed tenant too, whose audit
 * log stays readable (routes that serve its data ask `tenantAbsence`).
 */
export const tenantExists = async (sql: Sql, tenant: string): Promise<boolean> =>
  (await sql.query('SELECT 1 FROM rm_tenants WHERE id = $1', [tenant])).rows.length > 0;

/** Why a tenant's data cannot be served: never created (not found) or removed; null for a live tenant. */
export const tenantAbsence = async (sql: Sql, tenant: string): Promise<Refusal | null> => {
  const { rows } = await sql.query<{ removed_ms: string | null }>('SELECT removed_ms FROM rm_tenants WHERE id = $1', [tenant]);
  const row = rows[0];
  if (!row) return notFound('tenant');
  return row.removed_ms === null ? null : tenantRemoved(tenant, Number(row.removed_ms));
};

/** Every live tenant's id, in order (the retention timer walks them). */
export const tenantIds = async (sql: Sql): Promise<string[]> =>
  (await sql.query<{ id: string }>('SELECT id FROM rm_tenants WHERE removed_ms IS NULL ORDER BY id')).rows.map((r) => r.id);

/** The tenant's `retention_days` setting, or null for an unknown tenant. */
export const retentionDays = async (sql: Sql, tenant: string): Promise<number | null> => {
  const { rows } = await sql.query<{ settings: { retention_days: number } }>('SELECT settings FROM rm_tenants WHERE id = $1', [tenant]);
  return rows[0]?.settings.retention_days ?? null;
};

/** Whether the tenant holds any record (an import loads only into an empty one). */
export const tenantHasRecords = async (sql: Sql, tenant: string): Promise<boolean> =>
  (await sql.query('SELECT 1 FROM rm_records WHERE tenant = $1 LIMIT 1', [tenant])).rows.length > 0;

/** Whether the tenant serves its audit log's checkpoint and hash tiles without a key (`audit_public: "hashes"`). */
export const auditHashesPublic = async (sql: Sql, tenant: string): Promise<boolean> =>
  (await sql.query("SELECT 1 FROM rm_tenants WHERE id = $1 AND settings->>'audit_public' = 'hashes'", [tenant])).rows.length > 0;
