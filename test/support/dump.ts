import type { Sql } from '../../domain/ports/read-model.ts';
import type { Projection } from '../../projections/projection.ts';

/** Every read model's rows in a fixed order: what "the same read model" means in tests. */
export const dumpReadModels = async (db: Sql, projections: readonly Projection[]) => {
  const out: Record<string, unknown[]> = {};
  for (const p of projections) for (const table of p.tables) out[table] = (await db.query(`SELECT * FROM ${table} t ORDER BY (t.*)::text`)).rows;
  return out;
};
