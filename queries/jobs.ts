import type { Sql } from '../domain/ports/read-model.ts';

export const getJob = async (sql: Sql, tenant: string, job: string) => {
  const { rows } = await sql.query(
    `SELECT id, tenant, run, status, agent, plugin, install_gen, purpose, subject, data_subject, labels, scopes,
            expires_ms, started_ms, ended_ms, calls_minted
     FROM rm_jobs WHERE tenant = $1 AND id = $2`,
    [tenant, job],
  );
  return rows[0] ?? null;
};
