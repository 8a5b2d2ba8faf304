import type { Chain } from '../domain/envelopes/block.ts';
import type { Revocation } from '../domain/envelopes/reaches.ts';
import { ticketHash } from '../domain/shared/hash.ts';
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
  /**
   * The job stream's revision the labels were folded at (set by the fence): a read that joins
   * labels appends them expecting this revision, so two reads cannot each join one side of a wall.
   */
  readonly job_revision?: number;
  /** Infinity when the job has no expiry (SPEC §6: ceilings default to none). */
  readonly expires_ms: number;
  /** The fence's inputs: the job's status, its envelope chain, and every revocation since its epoch. */
  readonly status: 'running' | 'stopped';
  readonly chain: Chain;
  readonly revocations: readonly Revocation[];
}

export interface CallContextRow extends CallContext {
  function: string;
  /** The log streams of the call's job and tenant, as the models name them (never spelled in SQL). */
  job_stream: string;
  tenant_stream: string;
}

/** The live call behind ticket hash `$1` (shared with the admission statement). */
export const CALL_CONTEXT_SELECT = `SELECT c.tenant, t.settings, c.job, c.run, c.call, c.step, c.idempotency_key, c.startup, c.function,
            j.agent, j.plugin AS agent_plugin, j.stream AS job_stream, t.stream AS tenant_stream, j.purpose, j.data_subject, j.labels, coalesce(j.expires_ms::float8, 'Infinity') AS expires_ms,
            p.name AS plugin, coalesce(p.scopes, '[]'::jsonb) AS plugin_scopes, j.status, j.chain,
            (SELECT coalesce(jsonb_agg(r.revocation ORDER BY r.epoch, r.n), '[]'::jsonb) FROM rm_revocations r
             WHERE r.tenant = c.tenant AND r.epoch > coalesce(j.epoch, 0)) AS revocations
     FROM rm_calls c
     JOIN rm_jobs j ON j.tenant = c.tenant AND j.id = c.job AND j.run = c.run
     JOIN rm_tenants t ON t.id = c.tenant
     LEFT JOIN rm_plugins p ON p.tenant = c.tenant
       AND p.name = CASE WHEN position('/' IN c.function) > 0 THEN split_part(c.function, '/', 1) ELSE j.plugin END
     WHERE c.ticket_hash = $1 AND c.ended_ms IS NULL AND j.status IN ('running', 'stopped')`;

/** A plugin uninstalled since has no row: its namespace stays, with no scope declared. */
export const contextOf = (row: CallContextRow): CallContext => {
  const { function: fn, job_stream: _job, tenant_stream: _tenant, ...rest } = row;
  return { ...rest, plugin: rest.plugin ?? (fn.includes('/') ? fn.slice(0, fn.indexOf('/')) : rest.agent_plugin) };
};

/**
 * The live call behind a ticket, or null: an unknown ticket, an ended call and an ended job
 * answer null alike. A stopped job's calls are still found, so the fence can say `revoked`.
 */
export const callContext = async (sql: Sql, ticket: string): Promise<CallContext | null> => {
  const { rows } = await sql.query<CallContextRow>(CALL_CONTEXT_SELECT, [ticketHash(ticket)]);
  const row = rows[0];
  return row ? contextOf(row) : null;
};
