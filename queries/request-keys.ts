import type { Sql } from '../domain/ports/read-model.ts';

/** The version a request key already wrote (SPEC §4 check 5, across scopes), or null. */
export const priorWrite = async (db: Sql, tenant: string, requestKey: string): Promise<{ scope: string; key: string; version: number } | null> =>
  (
    await db.query<{ scope: string; key: string; version: number }>('SELECT scope, key, version FROM rm_request_keys WHERE tenant = $1 AND request_key = $2', [
      tenant,
      requestKey,
    ])
  ).rows[0] ?? null;
