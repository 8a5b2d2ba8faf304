import { checkpointText, originOf } from '../domain/audit/entries.ts';
import { signatureLine } from '../domain/audit/note.ts';
import { consistencyProof, inclusionProof, rangeHash } from '../domain/audit/merkle.ts';
import { auditSize, filterLines, receiptEntry, withNodes, type AuditFilters } from './audit-tiles.ts';
import type { CheckpointSigner } from '../domain/ports/checkpoint-signer.ts';
import type { Sql } from '../domain/ports/read-model.ts';

export type { AuditFilters };
export { auditSize };

/** SPEC §9 wire formats. Lines are exactly the canonical JSON that was hashed as each leaf. */
export const auditQueries = (db: Sql, signer: CheckpointSigner) => ({
  lines: (tenant: string, f: AuditFilters) => filterLines(db, tenant, f),

  /**
   * The signed tree head at `size` (default: the whole log): the JSON form's fields, the note
   * text (`origin\nsize\nroot\n`) and the log's note signature line over it. The JSON
   * `signature` is the same Ed25519 signature, over the same text.
   */
  async checkpoint(tenant: string, at?: number) {
    const size = at ?? (await auditSize(db, tenant));
    const root = (await withNodes(db, tenant, (src) => rangeHash(src, 0, size))).toString('base64');
    const origin = originOf(signer.logName, tenant);
    const text = checkpointText(origin, size, root);
    const signature = signer.signature(text);
    return { origin, size, root, signature: signature.toString('base64'), text, line: signatureLine(signer.key.name, signer.key.id, signature) };
  },

  /** The root of the tenant's tree at `size` (at most the log's size). */
  async rootAt(tenant: string, size: number) {
    return (await withNodes(db, tenant, (src) => rangeHash(src, 0, size))).toString('base64');
  },

  async inclusion(tenant: string, leaf: number, size: number) {
    const { hash, proof } = await withNodes(db, tenant, async (src) => ({ hash: await src.node(0, leaf), proof: await inclusionProof(src, leaf, 0, size) }));
    return { leaf_index: leaf, tree_size: size, leaf_hash: hash.toString('base64'), proof: proof.map((p) => p.toString('base64')) };
  },

  async consistency(tenant: string, from: number, to: number) {
    const proof = await withNodes(db, tenant, (src) => consistencyProof(src, from, to));
    return { size1: from, size2: to, proof: proof.map((p) => p.toString('base64')) };
  },
});

export type AuditQueries = ReturnType<typeof auditQueries>;

/** The log position the audit projection has applied (its checkpoint). */
export const auditProjectedTo = async (db: Sql): Promise<number> =>
  Number((await db.query<{ position: string }>("SELECT position FROM custodian_checkpoints WHERE name = 'audit'")).rows[0]?.position ?? 0);

export { receiptEntry };
