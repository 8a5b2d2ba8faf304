import { envelopeHash, type Chain } from '../domain/envelopes/block.ts';
import type { Sql } from '../domain/ports/read-model.ts';

export const getJob = async (sql: Sql, tenant: string, job: string) => {
  const { rows } = await sql.query(
    `SELECT id, tenant, run, status, agent, plugin, install_gen, purpose, subject, data_subject, labels, scopes,
            expires_ms, started_ms, ended_ms, calls_minted, parent, epoch, chain
     FROM rm_jobs WHERE tenant = $1 AND id = $2`,
    [tenant, job],
  );
  const found = rows[0] as (Record<string, unknown> & { chain: Chain }) | undefined;
  if (!found) return null;
  const { chain, ...rest } = found;
  return { ...rest, envelope: chain.length > 0 ? envelopeHash(chain) : null, constraints_digest: chain.at(-1)?.block.constraints_digest ?? null };
};

/** The subjects the tenant's running jobs run for, from their envelopes' first block. */
export const runningSubjects = async (sql: Sql, tenant: string): Promise<string[]> => {
  const { rows } = await sql.query<{ subject: string | null }>(
    `SELECT DISTINCT chain->0->'block'->>'subject' AS subject FROM rm_jobs WHERE tenant = $1 AND status = 'running'`,
    [tenant],
  );
  return rows.flatMap((r) => (typeof r.subject === 'string' ? [r.subject] : [])).sort();
};
