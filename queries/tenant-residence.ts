import type { Sql } from '../domain/ports/read-model.ts';

/**
 * What the router and a tenant move ask of one tenant database's read models: which tenant a
 * call ticket belongs to, which tenants the database holds, and removing a tenant's rows.
 */

/** The tenant whose call has this ticket hash, in this database; undefined when none. */
export const tenantOfTicketHash = async (sql: Sql, hash: string): Promise<string | undefined> =>
  (await sql.query<{ tenant: string }>('SELECT tenant FROM rm_calls WHERE ticket_hash = $1 LIMIT 1', [hash])).rows[0]?.tenant;

/** Every tenant this database holds, removed ones too (they answer 410 from where they are). */
export const heldTenantIds = async (sql: Sql): Promise<string[]> =>
  (await sql.query<{ id: string }>('SELECT id FROM rm_tenants ORDER BY id')).rows.map((r) => r.id);

/** Whether this database holds the tenant (removed or not). */
export const holdsTenant = async (sql: Sql, tenant: string): Promise<boolean> =>
  (await sql.query('SELECT 1 FROM rm_tenants WHERE id = $1', [tenant])).rows.length > 0;

/** The call ids of a tenant (`$1`), for the tables keyed by call. */
export const CALLS_OF_TENANT = 'SELECT call FROM rm_calls WHERE tenant = $1';

/**
 * Deletes the tenant's rows of every read model: the tables are found by their `tenant`
 * column (`rm_tenants` by `id`), so a model added later is removed too. Run inside the caller's
 * transaction, with the log's rows.
 */
export const deleteTenantModels = async (sql: Sql & { escapeIdentifier(name: string): string }, tenant: string): Promise<void> => {
  const { rows: models } = await sql.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name LIKE 'rm\\_%' AND column_name = 'tenant' ORDER BY table_name`,
  );
  for (const { table_name } of models) await sql.query(`DELETE FROM ${sql.escapeIdentifier(table_name)} WHERE tenant = $1`, [tenant]);
  await sql.query('DELETE FROM rm_tenants WHERE id = $1', [tenant]);
};
