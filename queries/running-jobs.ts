import type { Chain } from '../domain/envelopes/block.ts';
import type { Sql } from '../domain/ports/read-model.ts';

/** A tenant's running jobs with their chains, in id order: what a revocation batch is judged against. */
export const runningJobs = async (sql: Sql, tenant: string): Promise<{ id: string; chain: Chain }[]> =>
  (await sql.query<{ id: string; chain: Chain }>(`SELECT id, chain FROM rm_jobs WHERE tenant = $1 AND status = 'running' ORDER BY id`, [tenant])).rows;
