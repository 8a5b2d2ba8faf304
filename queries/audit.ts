import { checkpointText, originOf } from '../domain/audit/entries.ts';
import { signatureLine } from '../domain/audit/note.ts';
import { consistencyProof, inclusionProof, rangeHash, type NodeSource } from '../domain/audit/merkle.ts';
import type { CheckpointSigner } from '../domain/ports/checkpoint-signer.ts';
import type { Sql } from '../domain/ports/read-model.ts';

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

const nodes = (db: Sql, tenant: string): NodeSource => ({
  async node(level, index) {
    const { rows } = await db.query<{ hash: Buffer }>('SELECT hash FROM rm_audit_nodes WHERE tenant = $1 AND level = $2 AND idx = $3', [tenant, level, index]);
    if (!rows[0]) throw new Error(`audit tree of ${tenant}: no node ${level}/${index}`);
    return rows[0].hash;
  },
});

export const auditSize = async (db: Sql, tenant: string) =>
  Number((await db.query<{ size: number }>('SELECT size FROM rm_audit_heads WHERE tenant = $1', [tenant])).rows[0]?.size ?? 0);

/**
 * The lines the tree holds, for tenant `$1`: lines are stored with their events
 * (`custodian_audit_lines`) and join the tree when the integrator reaches them.
 */
export const INTEGRATED = 'seq < coalesce((SELECT h.size FROM rm_audit_heads h WHERE h.tenant = $1), 0)';

/** SPEC §9 wire formats. Lines are exactly the canonical JSON that was hashed as each leaf. */
export const auditQueries = (db: Sql, signer: CheckpointSigner) => ({
  async lines(tenant: string, f: AuditFilters): Promise<string[]> {
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
  },

  /**
   * The signed tree head at `size` (default: the whole log): the JSON form's fields, the note
   * text (`origin\nsize\nroot\n`) and the log's note signature line over it. The JSON
   * `signature` is the same Ed25519 signature, over the same text.
   */
  async checkpoint(tenant: string, at?: number) {
    const size = at ?? (await auditSize(db, tenant));
    const root = (await rangeHash(nodes(db, tenant), 0, size)).toString('base64');
    const origin = originOf(signer.logName, tenant);
    const text = checkpointText(origin, size, root);
    const signature = signer.signature(text);
    return { origin, size, root, signature: signature.toString('base64'), text, line: signatureLine(signer.key.name, signer.key.id, signature) };
  },

  /** The root of the tenant's tree at `size` (at most the log's size). */
  async rootAt(tenant: string, size: number) {
    return (await rangeHash(nodes(db, tenant), 0, size)).toString('base64');
  },

  async inclusion(tenant: string, leaf: number, size: number) {
    const src = nodes(db, tenant);
    const proof = await inclusionProof(src, leaf, 0, size);
    return { leaf_index: leaf, tree_size: size, leaf_hash: (await src.node(0, leaf)).toString('base64'), proof: proof.map((p) => p.toString('base64')) };
  },

  async consistency(tenant: string, from: number, to: number) {
    const proof = await consistencyProof(nodes(db, tenant), from, to);
    return { size1: from, size2: to, proof: proof.map((p) => p.toString('base64')) };
  },
});

export type AuditQueries = ReturnType<typeof auditQueries>;

/** The log position the audit projection has applied (its checkpoint). */
export const auditProjectedTo = async (db: Sql): Promise<number> =>
  Number((await db.query<{ position: string }>("SELECT position FROM custodian_checkpoints WHERE name = 'audit'")).rows[0]?.position ?? 0);

/** The newest entry of `kind` holding a receipt with this signature: a receipt's entry is recent, so the scan from the end stops soon. */
export const receiptEntry = async (db: Sql, tenant: string, kind: string, signature: string): Promise<{ index: number; entry: string } | null> => {
  const { rows } = await db.query<{ seq: string; line: string }>(
    `SELECT seq, line FROM custodian_audit_lines WHERE tenant = $1 AND ${INTEGRATED} AND kind = $2 AND strpos(line, $3) > 0 ORDER BY seq DESC LIMIT 1`,
    [tenant, kind, `"signature":${JSON.stringify(signature)}`],
  );
  return rows[0] ? { index: Number(rows[0].seq), entry: rows[0].line } : null;
};
