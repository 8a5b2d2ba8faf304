import pg from 'pg';

export type Queryable = Pick<pg.PoolClient, 'query'>;

// bigint columns (positions, revisions) come back as JS numbers: they stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** `connectTimeoutMs`: a connect that takes longer fails (a server that stops answering is then a 503, not a wait). */
export const createPool = (connectionString: string, max = 10, connectTimeoutMs?: number): pg.Pool => {
  const pool = new pg.Pool({ connectionString, max, ...(connectTimeoutMs ? { connectionTimeoutMillis: connectTimeoutMs } : {}) });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // Nor may a borrowed one between two queries (the pool listens only while a client is idle),
  // e.g. when the server shuts down: its next query fails (503) and the pool drops it when released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
};

/** Runs `work` in one transaction: committed if it resolves, rolled back if it throws. */
export const inTransaction = async <T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
