import { afterAll, describe, expect, it } from 'vitest';
import { databasePools } from '../../support/databases.ts';
import { isDatabaseUnavailable } from '../../../adapters/http/database-unavailable.ts';

const dbs = databasePools();
afterAll(() => dbs.close());

/**
 * A client borrowed from the pool and waiting between two queries when its server goes away
 * (a shutdown sends it 57P01 with no query to fail): the process must not crash on the
 * client's 'error' event (an unhandled one fails this file), its next query must fail as "the
 * database does not answer", and the pool must not lend the dead client again.
 */
describe('a borrowed client whose server connection is terminated', () => {
  it('raises no unhandled error, its next query fails as the database not answering, and the pool replaces it', async () => {
    const { pool } = await dbs.fresh();
    const other = dbs.pool((await dbs.fresh()).db.url);
    const client = await pool.connect();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    await other.query('SELECT pg_terminate_backend($1)', [pid]);
    await ended;

    const failure = await client.query('SELECT 1').then(
      () => null,
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailable(failure)).toBe(true);
    client.release();

    const again = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(again.rows[0]!.pid).not.toBe(pid);
  });
});
