import type { NodeSource } from '../domain/audit/merkle.ts';
import type { Sql } from '../domain/ports/read-model.ts';

/**
 * Every read of the audit tree's stored nodes and lines, in one place: tiles, entry bundles,
 * roots and proofs. A hash tile is a range of `rm_audit_nodes` rows at one level (the rows
 * at levels 8·L are exactly tile level L), so tiles and proofs read the same stored hashes.
 */

/**
 * The lines the tree holds, for tenant `$1`: lines are stored with their events
 * (`custodian_audit_lines`) and join the tree when the integrator reaches them.
 */
export const INTEGRATED = 'seq < coalesce((SELECT h.size FROM rm_audit_heads h WHERE h.tenant = $1), 0)';

export const auditSize = async (db: Sql, tenant: string) =>
  Number((await db.query<{ size: number }>('SELECT size FROM rm_audit_heads WHERE tenant = $1', [tenant])).rows[0]?.size ?? 0);

/** `count` hashes of tree level `level` from index `from`, concatenated (a hash tile); null when one is not stored. */
export const readHashes = async (db: Sql, tenant: string, level: number, from: number, count: number): Promise<Buffer | null> => {
  const { rows } = await db.query<{ hash: Buffer }>(
    'SELECT hash FROM rm_audit_nodes WHERE tenant = $1 AND level = $2 AND idx >= $3 AND idx < $4 ORDER BY idx',
    [tenant, level, from, from + count],
  );
  return rows.length === count ? Buffer.concat(rows.map((r) => r.hash)) : null;
};

/** The lines of entries [from, from + count), in order (an entry bundle's entries); null when one is not stored. */
export const readLines = async (db: Sql, tenant: string, from: number, count: number): Promise<string[] | null> => {
  const { rows } = await db.query<{ line: string }>(
    `SELECT line FROM custodian_audit_lines WHERE tenant = $1 AND ${INTEGRATED} AND seq >= $2 AND seq < $3 ORDER BY seq`,
    [tenant, from, from + count],
  );
  return rows.length === count ? rows.map((r) => r.line) : null;
};

const PLACEHOLDER = Buffer.alloc(32);

/**
 * Runs `compute` (a root, proofs) over the tenant's stored nodes with two round trips: which
 * nodes a root or proof needs depends on sizes and indexes only, never on hashes, so a first
 * pass lists them, one query reads them all, and the second pass computes over them.
 */
export const withNodes = async <T>(db: Sql, tenant: string, compute: (src: NodeSource) => Promise<T>): Promise<T> => {
  const wanted = new Map<string, { level: number; index: number }>();
  await compute({
    async node(level, index) {
      wanted.set(`${level}/${index}`, { level, index });
      return PLACEHOLDER;
    },
  });
  const asked = [...wanted.values()];
  const held = new Map<string, Buffer>();
  if (asked.length > 0) {
    const { rows } = await db.query<{ level: number; idx: string; hash: Buffer }>(
      `SELECT n.level, n.idx, n.hash FROM rm_audit_nodes n
         JOIN unnest($2::int[], $3::bigint[]) AS w(level, idx) ON n.level = w.level AND n.idx = w.idx
        WHERE n.tenant = $1`,
      [tenant, asked.map((w) => w.level), asked.map((w) => w.index)],
    );
    for (const r of rows) held.set(`${r.level}/${Number(r.idx)}`, r.hash);
  }
  return compute({
    async node(level, index) {
      const hash = held.get(`${level}/${index}`);
      if (!hash) throw new Error(`audit tree of ${tenant}: no node ${level}/${index}`);
      return hash;
    },
  });
};

export interface AuditFilters {
  job?: string | undefined;
  record?: string | undefined;
  kind?: string | undefined;
  subject?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
  epoch?: number | undefined;
  /** Paging: entries with seq ≥ from_seq, or the last `limit` with seq < before_seq; lines keep seq order either way. */
  from_seq?: number | undefined;
  before_seq?: number | undefined;
  limit?: number | undefined;
}

/** The lines the filters select, in seq order. Filters select lines, never change them. */
export const filterLines = async (db: Sql, tenant: string, f: AuditFilters): Promise<string[]> => {
  const params: unknown[] = [tenant];
  // Only lines already in the tree: a line stored with its event waits for the integrator.
  const where = ['tenant = $1', INTEGRATED];
  const add = (clause: (p: string) => string, v: unknown) => {
    params.push(v);
    where.push(clause(`$${params.length}`));
  };
  if (f.job !== undefined) add((p) => `job = ${p}`, f.job);
  if (f.record !== undefined) add((p) => `${p} = ANY(record_refs)`, f.record);
  if (f.kind !== undefined) add((p) => `kind = ${p}`, f.kind);
  if (f.subject !== undefined) add((p) => `subject = ${p}`, f.subject);
  if (f.since !== undefined) add((p) => `at >= ${p}`, f.since);
  if (f.until !== undefined) add((p) => `at < ${p}`, f.until);
  if (f.epoch !== undefined) add((p) => `epoch = ${p}`, f.epoch);
  if (f.from_seq !== undefined) add((p) => `seq >= ${p}`, f.from_seq);
  if (f.before_seq !== undefined) add((p) => `seq < ${p}`, f.before_seq);
  // A page before a seq is the last `limit` entries below it: read newest first, answered in seq order.
  const backwards = f.before_seq !== undefined && f.from_seq === undefined && f.limit !== undefined;
  let limit = '';
  if (f.limit !== undefined) {
    params.push(f.limit);
    limit = ` LIMIT $${params.length}`;
  }
  const { rows } = await db.query<{ line: string }>(
    `SELECT line FROM custodian_audit_lines WHERE ${where.join(' AND ')} ORDER BY seq${backwards ? ' DESC' : ''}${limit}`,
    params,
  );
  const lines = rows.map((r) => r.line);
  return backwards ? lines.reverse() : lines;
};

/** The newest entry of `kind` holding a receipt with this signature: a receipt's entry is recent, so the scan from the end stops soon. */
export const receiptEntry = async (db: Sql, tenant: string, kind: string, signature: string): Promise<{ index: number; entry: string } | null> => {
  const { rows } = await db.query<{ seq: string; line: string }>(
    `SELECT seq, line FROM custodian_audit_lines WHERE tenant = $1 AND ${INTEGRATED} AND kind = $2 AND strpos(line, $3) > 0 ORDER BY seq DESC LIMIT 1`,
    [tenant, kind, `"signature":${JSON.stringify(signature)}`],
  );
  return rows[0] ? { index: Number(rows[0].seq), entry: rows[0].line } : null;
};
