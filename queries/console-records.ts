import type { Sql } from '../domain/ports/read-model.ts';

/** One version of a record as the console shows it: metadata only, never its body. */
export interface RecordVersionMeta {
  readonly scope: string;
  readonly key: string;
  readonly version: number;
  readonly kind: string;
  readonly state: string;
  readonly closed: boolean;
  readonly ends_at: number;
  readonly labels: unknown;
  readonly purpose: string;
  readonly subject_kind: string;
  readonly created_ms: number;
  readonly writer_job: string;
  readonly writer_agent: string;
}

/**
 * A plugin's records with every version, newest records first, for the console (SPEC §14).
 * The body column is never selected: a body read needs a purpose-bearing ticket and is itself
 * an audited act, which a read-only page must not perform.
 */
export const recordHistories = async (sql: Sql, tenant: string, plugin: string, scope: string | null, limit: number): Promise<RecordVersionMeta[]> => {
  const { rows } = await sql.query<RecordVersionMeta>(
    `WITH newest AS (
       SELECT scope, key, created_ms FROM rm_records
        WHERE tenant = $1 AND plugin = $2 AND ($3::text IS NULL OR scope = $3)
        ORDER BY created_ms DESC, scope, key LIMIT $4
     )
     SELECT v.scope, v.key, v.version, v.kind, v.state, v.closed, v.ends_at::float8 AS ends_at, v.labels, v.purpose, v.subject_kind,
            v.created_ms::float8 AS created_ms, v.writer_job, v.writer_agent
       FROM rm_record_versions v JOIN newest n ON n.scope = v.scope AND n.key = v.key
      WHERE v.tenant = $1 AND v.plugin = $2
      ORDER BY n.created_ms DESC, v.scope, v.key, v.version DESC`,
    [tenant, plugin, scope, limit],
  );
  return rows;
};
