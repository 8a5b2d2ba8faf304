import { createHash } from 'node:crypto';
import type { Sql } from '../domain/ports/read-model.ts';
import type { RecordScopeKind } from '../domain/tenants/events.ts';
import type { TenantSettings } from '../domain/tenants/settings.ts';

/** Everything a records request needs to know about the call behind its ticket. */
export interface CallContext {
  readonly tenant: string;
  readonly settings: TenantSettings;
  readonly job: string;
  readonly run: number;
  readonly call: string;
  readonly step: number;
  readonly idempotency_key: string;
  readonly startup: boolean;
  /** The job's agent (plain name) and the plugin that agent belongs to. */
  readonly agent: string;
  readonly agent_plugin: string;
  /** The plugin whose function the call runs: the records namespace. */
  readonly plugin: string;
  readonly plugin_scopes: readonly RecordScopeKind[];
  readonly purpose: string;
  readonly data_subject: string | null;
  readonly labels: readonly string[];
  readonly expires_ms: number;
}

interface Row extends Omit<CallContext, 'plugin_scopes' | 'plugin'> {
  function: string;
}

/**
 * The live call behind a ticket, or null: an unknown ticket, an ended call and a job that is
 * no longer running all answer null alike.
 */
export const callContext = async (sql: Sql, ticket: string): Promise<CallContext | null> => {
  const hash = createHash('sha256').update(ticket).digest('hex');
  const { rows } = await sql.query<Row>(
    `SELECT c.tenant, t.settings, c.job, c.run, c.call, c.step, c.idempotency_key, c.startup, c.function,
            j.agent, j.plugin AS agent_plugin, j.purpose, j.data_subject, j.labels, j.expires_ms::float8 AS expires_ms
     FROM rm_calls c
     JOIN rm_jobs j ON j.tenant = c.tenant AND j.id = c.job AND j.run = c.run
     JOIN rm_tenants t ON t.id = c.tenant
     WHERE c.ticket_hash = $1 AND c.ended_ms IS NULL AND j.status = 'running'`,
    [hash],
  );
  const row = rows[0];
  if (!row) return null;
  const slash = row.function.indexOf('/');
  const plugin = slash === -1 ? row.agent_plugin : row.function.slice(0, slash);
  const { rows: plugins } = await sql.query<{ scopes: RecordScopeKind[] }>('SELECT scopes FROM rm_plugins WHERE tenant = $1 AND name = $2', [row.tenant, plugin]);
  const { function: _fn, ...rest } = row;
  return { ...rest, plugin, plugin_scopes: plugins[0]?.scopes ?? [] };
};
