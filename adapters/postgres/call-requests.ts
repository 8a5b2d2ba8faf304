import type pg from 'pg';
import type { RequestCounter } from '../../domain/ports/request-counter.ts';

/**
 * How many requests each call has made. A counter, not a fact: it lives beside the log, and
 * the one atomic UPDATE keeps the 64-request bound exact under parallel requests.
 */
export const postgresRequestCounter = async (pool: pg.Pool): Promise<RequestCounter> => {
  return {
    async next(call) {
      const { rows } = await pool.query<{ n: number }>(
        `INSERT INTO custodian_call_requests (call, n) VALUES ($1, 1)
         ON CONFLICT (call) DO UPDATE SET n = custodian_call_requests.n + 1 RETURNING n`,
        [call],
      );
      return rows[0]!.n;
    },
  };
};
