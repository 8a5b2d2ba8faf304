import type { Sql } from '../domain/ports/read-model.ts';

/** Open renewal requests of a tenant (SPEC §7), optionally of one plugin. */
export const renewals = async (sql: Sql, tenant: string, plugin: string | null) =>
  (
    await sql.query(
      `SELECT plugin, scope, key, version, ends_at::float8 AS ends_at, requested_ms::float8 AS requested_ms FROM rm_renewals
       WHERE tenant = $1 AND ($2::text IS NULL OR plugin = $2) ORDER BY plugin, scope, key`,
      [tenant, plugin],
    )
  ).rows;
