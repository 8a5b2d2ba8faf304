import { inclusionProof } from '../domain/audit/merkle.ts';
import { INTEGRATED, withNodes } from './audit-tiles.ts';
import type { Sql } from '../domain/ports/read-model.ts';

/** How many jobs and records a picker lists at most: the newest first, so the recent ones are there. */
const PICKS = 500;

/**
 * What the console's audit filters pick from (SPEC §14): the kinds the log holds, its jobs
 * (with the agent and purpose they ran under) and the records its entries name, with the
 * log's size and time span. Names and counts only; lines are read through the audit stream.
 */
export const auditFacets = async (db: Sql, tenant: string) => {
  const [span, kinds, jobs, records] = await Promise.all([
    db.query<{ size: string; first_at: string | null; last_at: string | null }>(
      `SELECT count(*) AS size, min(at) AS first_at, max(at) AS last_at FROM custodian_audit_lines WHERE tenant = $1 AND ${INTEGRATED}`,
      [tenant],
    ),
    db.query<{ kind: string; entries: string }>(
      `SELECT kind, count(*) AS entries FROM custodian_audit_lines WHERE tenant = $1 AND ${INTEGRATED} GROUP BY kind ORDER BY kind`,
      [tenant],
    ),
    db.query<{ job: string; entries: string; last_at: string; agent: string | null; purpose: string | null }>(
      `SELECT a.job, a.entries, a.last_at, j.agent, j.purpose
         FROM (SELECT job, count(*) AS entries, max(at) AS last_at FROM custodian_audit_lines WHERE tenant = $1 AND ${INTEGRATED} AND job IS NOT NULL GROUP BY job) a
         LEFT JOIN LATERAL (
           SELECT s.line::jsonb ->> 'agent' AS agent, s.line::jsonb ->> 'purpose' AS purpose FROM custodian_audit_lines s
           WHERE s.tenant = $1 AND s.job = a.job AND s.kind = 'job_started' ORDER BY s.seq DESC LIMIT 1) j ON true
        ORDER BY a.last_at DESC, a.job LIMIT $2`,
      [tenant, PICKS],
    ),
    // `scope#key` refs only (one '#': no scope or key holds one); the versions come with them.
    db.query<{ record: string; versions: string[] }>(
      `SELECT split_part(ref, '#', 1) || '#' || split_part(ref, '#', 2) AS record,
              array_agg(DISTINCT split_part(ref, '#', 3)) FILTER (WHERE split_part(ref, '#', 3) <> '') AS versions
         FROM (SELECT DISTINCT unnest(record_refs) AS ref FROM custodian_audit_lines WHERE tenant = $1 AND ${INTEGRATED}) r
        GROUP BY 1 ORDER BY 1 LIMIT $2`,
      [tenant, PICKS],
    ),
  ]);
  const row = span.rows[0];
  return {
    size: Number(row?.size ?? 0),
    first_at: row?.first_at == null ? null : Number(row.first_at),
    last_at: row?.last_at == null ? null : Number(row.last_at),
    kinds: kinds.rows.map((k) => ({ kind: k.kind, entries: Number(k.entries) })),
    jobs: jobs.rows.map((j) => ({ job: j.job, entries: Number(j.entries), agent: j.agent, purpose: j.purpose })),
    records: records.rows.map((r) => ({ record: r.record, versions: (r.versions ?? []).map(Number).sort((a, b) => a - b) })),
  };
};

/**
 * Inclusion proofs for many leaves of one tree, in the audit stream's proof format, with the
 * nodes they all need read in one statement (`withNodes`).
 */
export const inclusionProofs = async (db: Sql, tenant: string, leaves: readonly number[], size: number) =>
  withNodes(db, tenant, (src) =>
    Promise.all(
      leaves.map(async (leaf) => ({
        leaf_index: leaf,
        tree_size: size,
        leaf_hash: (await src.node(0, leaf)).toString('base64'),
        proof: (await inclusionProof(src, leaf, 0, size)).map((p) => p.toString('base64')),
      })),
    ),
  );
