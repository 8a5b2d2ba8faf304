import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool } from '../../adapters/postgres/pool.ts';
import { applySchema } from '../../adapters/postgres/schema.ts';

/**
 * A new database on the run's server, so test files never see each other's events, with this
 * build's schema applied as the composition root applies it (`schema: false`: left empty, for
 * the tests of upgrades and of the ledger itself).
 * `blocking`: on the server kept for files that hold a transaction id open on purpose (see
 * `blockingDatabaseUrl` in the global setup), so they cannot stall the other files' projections.
 */
export const freshDatabase = async (options: { blocking?: boolean; schema?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> => {
  const serverUrl = inject(options.blocking ? 'blockingDatabaseUrl' : 'databaseUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (options.schema !== false) {
    const pool = createPool(url.toString(), 1);
    await applySchema(pool).finally(() => pool.end());
  }
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
};
