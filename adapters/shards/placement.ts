import type pg from 'pg';
import { PLACEMENT_LOCK } from '../postgres/advisory-locks.ts';

/** Where a tenant lives: its database, and the database it is being moved to, if any. */
export interface Placement {
  readonly tenant: string;
  readonly database: string;
  /** A move under way (or interrupted): the tenant's writes pause until it ends. */
  readonly movingTo: string | null;
  /** The database a finished move left the old copy in, until that copy is removed. */
  readonly movedFrom: string | null;
}

/**
 * The placement table on the control database (`custodian_placement`, made by the schema's
 * migration 0028, applied to the control database before this is built): tenant → database. Assigned under an advisory
 * lock so two instances creating tenants at once count the same rows (as Marten's
 * `mt_tenant_assignments`).
 */
export const placementStore = (pool: pg.Pool) => {
  const row = (r: { tenant: string; database: string; moving_to: string | null; moved_from: string | null }): Placement => ({
    tenant: r.tenant,
    database: r.database,
    movingTo: r.moving_to,
    movedFrom: r.moved_from,
  });

  return {
    async ping(): Promise<void> {
      await pool.query('SELECT 1');
    },

    async of(tenant: string): Promise<Placement | null> {
      const { rows } = await pool.query('SELECT tenant, database, moving_to, moved_from FROM custodian_placement WHERE tenant = $1', [tenant]);
      return rows[0] ? row(rows[0]) : null;
    },

    async all(): Promise<Placement[]> {
      const { rows } = await pool.query('SELECT tenant, database, moving_to, moved_from FROM custodian_placement ORDER BY tenant');
      return rows.map(row);
    },

    /**
     * Places `tenant` under the lock: where it already is (the caller forwards and the database
     * answers that it exists), on `requested`, or on the database with the fewest tenants (ties
     * by name). `create` makes the tenant there; the row is written only when it answers true,
     * in the same control transaction, so a refused creation places nothing.
     */
    async place(
      tenant: string,
      requested: string | undefined,
      names: readonly string[],
      create: (database: string, existing: boolean) => Promise<boolean>,
    ): Promise<string> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [PLACEMENT_LOCK]);
        const { rows: existing } = await client.query<{ database: string }>('SELECT database FROM custodian_placement WHERE tenant = $1', [tenant]);
        if (existing[0]) {
          await client.query('COMMIT');
          await create(existing[0].database, true);
          return existing[0].database;
        }
        const { rows: counts } = await client.query<{ database: string; n: number }>(
          'SELECT database, count(*)::int AS n FROM custodian_placement GROUP BY database',
        );
        const count = (name: string) => counts.find((c) => c.database === name)?.n ?? 0;
        const database = requested ?? [...names].sort((a, b) => count(a) - count(b) || (a < b ? -1 : a > b ? 1 : 0))[0]!;
        if (await create(database, false))
          await client.query('INSERT INTO custodian_placement (tenant, database, placed_ms) VALUES ($1, $2, $3)', [tenant, database, Date.now()]);
        await client.query('COMMIT');
        return database;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },

    /**
     * Records tenants found in a database with no placement row: those of a database that held
     * every tenant before CUSTODIAN_DATABASES named it, or one whose creating instance died
     * before writing its row. A tenant already placed keeps its row.
     */
    async adopt(tenants: readonly string[], database: string): Promise<void> {
      if (tenants.length === 0) return;
      await pool.query(
        'INSERT INTO custodian_placement (tenant, database, placed_ms) SELECT t, $2, $3 FROM unnest($1::text[]) AS t ON CONFLICT (tenant) DO NOTHING',
        [tenants, database, Date.now()],
      );
    },

    /** Marks a move begun (writes pause), or ended (null). */
    async setMoving(tenant: string, to: string | null): Promise<void> {
      await pool.query('UPDATE custodian_placement SET moving_to = $2 WHERE tenant = $1', [tenant, to]);
    },

    /** Switches the tenant to `to` and ends the pause, in one statement; the old copy is named until it is removed. */
    async switchTo(tenant: string, to: string): Promise<void> {
      await pool.query('UPDATE custodian_placement SET moved_from = database, database = $2, moving_to = NULL WHERE tenant = $1', [tenant, to]);
    },

    /** The old copy is gone: the move is over. */
    async removed(tenant: string): Promise<void> {
      await pool.query('UPDATE custodian_placement SET moved_from = NULL WHERE tenant = $1', [tenant]);
    },
  };
};

export type PlacementStore = Awaited<ReturnType<typeof placementStore>>;
