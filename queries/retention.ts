import type { Sql } from '../domain/ports/read-model.ts';
import type { HeldCandidate } from '../domain/retention/holds.ts';

/** A record as the read model shows it, with what a legal hold looks at. */
export interface RetainedRecord extends HeldCandidate {
  readonly version: number;
}

/**
 * The records a compliance rule looks at, with whose they are and which job trees wrote them.
 * The read model only nominates: each scope's decider judges against the scope's own state.
 */
export type CandidateFilter =
  | { readonly kind: 'ended_by'; readonly now: number }
  | { readonly kind: 'data_subject'; readonly subject: string }
  | { readonly kind: 'record'; readonly plugin: string; readonly scope: string; readonly key: string }
  | { readonly kind: 'records'; readonly plugin: string; readonly scope: string; readonly keys: readonly string[] };

const filterSql = (f: CandidateFilter): { where: string; params: unknown[] } => {
  switch (f.kind) {
    case 'ended_by':
      return { where: 'r.ends_at <= $2', params: [f.now] };
    case 'data_subject':
      return {
        where: `EXISTS (SELECT 1 FROM rm_record_versions v WHERE v.tenant = r.tenant AND v.plugin = r.plugin
      AND v.scope = r.scope AND v.key = r.key AND v.data_subject = $2)`,
        params: [f.subject],
      };
    case 'record':
      return { where: 'r.plugin = $2 AND r.scope = $3 AND r.key = $4', params: [f.plugin, f.scope, f.key] };
    case 'records':
      return { where: 'r.plugin = $2 AND r.scope = $3 AND r.key = ANY($4::text[])', params: [f.plugin, f.scope, f.keys] };
  }
};

export const retentionCandidates = async (db: Sql, tenant: string, filter: CandidateFilter): Promise<RetainedRecord[]> => {
  const { where, params } = filterSql(filter);
  const { rows } = await db.query<RetainedRecord>(
    `SELECT r.plugin, r.scope, r.key, r.version,
       (SELECT coalesce(jsonb_agg(DISTINCT v.data_subject) FILTER (WHERE v.data_subject IS NOT NULL), '[]'::jsonb)
          FROM rm_record_versions v WHERE v.tenant = r.tenant AND v.plugin = r.plugin AND v.scope = r.scope AND v.key = r.key) AS data_subjects,
       (SELECT coalesce(jsonb_agg(DISTINCT b->'block'->>'job'), '[]'::jsonb)
          FROM rm_record_versions v JOIN rm_jobs j ON j.tenant = v.tenant AND j.id = v.writer_job, jsonb_array_elements(j.chain) b
          WHERE v.tenant = r.tenant AND v.plugin = r.plugin AND v.scope = r.scope AND v.key = r.key) AS tree_jobs
     FROM rm_records r WHERE r.tenant = $1 AND ${where} ORDER BY r.plugin, r.scope, r.key`,
    [tenant, ...params],
  );
  return rows;
};
