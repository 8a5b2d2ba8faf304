import type pg from 'pg';
import { createPool } from '../../adapters/postgres/pool.ts';
import { freshDatabase } from './database.ts';

/** Fresh databases and pools for one test file, all ended and dropped by `close` (its afterAll). */
export const databasePools = () => {
  const databases: Awaited<ReturnType<typeof freshDatabase>>[] = [];
  const pools: pg.Pool[] = [];
  return {
    /** `schema: false`: an empty database (upgrades, the ledger); else this build's schema applied. */
    async fresh(options: { schema?: boolean } = {}) {
      const db = await freshDatabase(options);
      databases.push(db);
      return { db, pool: this.pool(db.url) };
    },
    /** Another pool on a database: another instance of the service. */
    pool(url: string) {
      const pool = createPool(url, 4);
      pools.push(pool);
      return pool;
    },
    async close() {
      for (const p of pools) await p.end();
      for (const d of databases) await d.drop();
    },
  };
};
