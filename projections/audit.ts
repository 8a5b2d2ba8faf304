import { auditFields, recordRefs, type JobFacts } from '../domain/audit/entries.ts';
import { leafHash, nodeHash } from '../domain/audit/merkle.ts';
import { canonicalJson } from '../domain/shared/hash.ts';
import type { Projection } from './projection.ts';

/**
 * The audit log: an append-only list of entries per tenant and the RFC 6962 tree over them.
 * Each complete subtree is stored once (`rm_audit_nodes`: level, index), so a leaf costs
 * O(log n) writes and any root or proof is O(log n) reads — nothing is recomputed.
 */
export const auditProjection: Projection = {
  name: 'audit',
  // Each tenant's entries follow the log's order.
  order: 'log',
  tables: ['rm_audit', 'rm_audit_nodes', 'rm_audit_heads', 'rm_audit_jobs'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_audit (
      tenant text NOT NULL, seq bigint NOT NULL, at bigint NOT NULL, kind text NOT NULL, job text, subject text, epoch int,
      record_refs text[] NOT NULL, line text NOT NULL,
      PRIMARY KEY (tenant, seq)
    );
    CREATE INDEX IF NOT EXISTS rm_audit_by_job ON rm_audit (tenant, job);
    CREATE INDEX IF NOT EXISTS rm_audit_by_record ON rm_audit USING gin (record_refs);
    CREATE TABLE IF NOT EXISTS rm_audit_nodes (
      tenant text NOT NULL, level int NOT NULL, idx bigint NOT NULL, hash bytea NOT NULL,
      PRIMARY KEY (tenant, level, idx)
    );
    CREATE TABLE IF NOT EXISTS rm_audit_heads (tenant text PRIMARY KEY, size bigint NOT NULL);
    CREATE TABLE IF NOT EXISTS rm_audit_jobs (
      tenant text NOT NULL, job text NOT NULL, run int NOT NULL, agent text NOT NULL, purpose text NOT NULL, subject text NOT NULL,
      PRIMARY KEY (tenant, job, run)
    );`,
  async apply(sql, event, recorded) {
    const tenant = (event.data as { tenant?: string }).tenant;
    if (!tenant) return;
    // The projection keeps its own job facts, per run: another model's rows change as ids are
    // started again, and an entry read from them would change on rebuild.
    if (event.type === 'JobStarted') {
      const d = event.data;
      await sql.query('INSERT INTO rm_audit_jobs (tenant, job, run, agent, purpose, subject) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT DO NOTHING', [
        tenant, d.job, d.run, d.agent, d.purpose, d.subject,
      ]);
    }
    const refOf = (job: string, run: number) => `${job}\u0000${run}`;
    const d = event.data as { job?: string; run?: number; writer?: { job: string; run: number } };
    const named = [...(d.job !== undefined && d.run !== undefined ? [{ job: d.job, run: d.run }] : []), ...(d.writer ? [d.writer] : [])];
    const jobs = new Map<string, JobFacts | null>();
    for (const { job, run } of named) {
      const { rows } = await sql.query<JobFacts>('SELECT agent, purpose, subject FROM rm_audit_jobs WHERE tenant = $1 AND job = $2 AND run = $3', [tenant, job, run]);
      jobs.set(refOf(job, run), rows[0] ?? null);
    }
    const fields = auditFields(event, (job, run) => jobs.get(refOf(job, run)) ?? null);
    if (!fields) return;

    await sql.query('INSERT INTO rm_audit_heads (tenant, size) VALUES ($1, 0) ON CONFLICT DO NOTHING', [tenant]);
    const { rows } = await sql.query<{ size: number }>('SELECT size FROM rm_audit_heads WHERE tenant = $1 FOR UPDATE', [tenant]);
    const seq = Number(rows[0]!.size);
    const line = canonicalJson({ seq, at: recorded.recorded_at, ...fields });
    await sql.query(
      'INSERT INTO rm_audit (tenant, seq, at, kind, job, subject, epoch, record_refs, line) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)',
      [tenant, seq, recorded.recorded_at, fields.kind, fields.job ?? null, fields.subject ?? null, fields.epoch ?? null, recordRefs(fields.records), line],
    );
    let hash = leafHash(Buffer.from(line));
    let level = 0;
    let idx = seq;
    await sql.query('INSERT INTO rm_audit_nodes (tenant, level, idx, hash) VALUES ($1, 0, $2, $3)', [tenant, idx, hash]);
    // A right child completes its parent: climb while the index is odd.
    while (idx % 2 === 1) {
      const { rows: left } = await sql.query<{ hash: Buffer }>('SELECT hash FROM rm_audit_nodes WHERE tenant = $1 AND level = $2 AND idx = $3', [tenant, level, idx - 1]);
      hash = nodeHash(left[0]!.hash, hash);
      level++;
      idx = (idx - 1) / 2;
      await sql.query('INSERT INTO rm_audit_nodes (tenant, level, idx, hash) VALUES ($1, $2, $3, $4)', [tenant, level, idx, hash]);
    }
    await sql.query('UPDATE rm_audit_heads SET size = $2 WHERE tenant = $1', [tenant, seq + 1]);
  },
};
