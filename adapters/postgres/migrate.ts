import { MIGRATION_LOCK } from './advisory-locks.ts';
import type pg from 'pg';
import { inTransaction } from './pool.ts';

export interface Migration {
  readonly id: string;
  readonly sql: string;
}

/** Applies each migration once, in order, under a lock so that concurrent starts agree. */
export const migrate = async (pool: pg.Pool, migrations: readonly Migration[]): Promise<void> => {
  await inTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query('CREATE TABLE IF NOT EXISTS custodian_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await tx.query<{ id: string }>('SELECT id FROM custodian_migrations');
    const applied = new Set(rows.map((r) => r.id));
    for (const m of migrations) {
      if (applied.has(m.id)) continue;
      await tx.query(m.sql);
      await tx.query('INSERT INTO custodian_migrations (id) VALUES ($1)', [m.id]);
    }
  });
};
