import type { Sql } from '../domain/ports/read-model.ts';

/** Leaves in every tenant's audit tree together: a figure for the public metrics, which name no tenant. */
export const auditTreeSizeAll = async (db: Sql): Promise<number> =>
  Number((await db.query<{ size: string | null }>('SELECT sum(size) AS size FROM rm_audit_heads')).rows[0]?.size ?? 0);
