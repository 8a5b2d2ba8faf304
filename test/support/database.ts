import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/**
 * A new, empty database on the run's server, so test files never see each other's events.
 * `blocking`: on the server kept for files that hold a transaction id open on purpose (see
 * `blockingDatabaseUrl` in the global setup), so they cannot stall the other files' projections.
 */
export const freshDatabase = async (options: { blocking?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> => {
  const serverUrl = inject(options.blocking ? 'blockingDatabaseUrl' : 'databaseUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
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
