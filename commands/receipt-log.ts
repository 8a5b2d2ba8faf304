import type { Sql } from '../domain/ports/read-model.ts';
import { auditProjectedTo, receiptEntry, type AuditQueries } from '../queries/audit.ts';
import type { WitnessCommands } from './audit-witnesses.ts';
import { receiptEntryKind } from '../domain/audit/receipt-proof.ts';
import { formatTlogProof } from '../domain/audit/tlog-proof.ts';

/** Where a receipt's entry was logged: its index, the entry as hashed, a signed checkpoint that includes it and the inclusion proof. */
export interface ReceiptLog {
  readonly index: number;
  readonly entry: string;
  readonly checkpoint: string;
  readonly proof: readonly string[];
  /** The same proof as a c2sp.org/tlog-proof text (index, inclusion hashes, the checkpoint note), as the ecosystem's tools read it. */
  readonly tlog_proof: string;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Finishes a receipt with the proof that it was logged (`log`). The audit log is projected
 * asynchronously, so this waits (as reads wait for durability) until the audit projection has
 * applied the event that carries the receipt, then finds its entry, signs a checkpoint of the
 * log as it is now — which includes the entry — and proves the entry's inclusion in it. When
 * the projection does not get there within `timeoutMs` the receipt is answered without `log`.
 */
export const receiptLogger = (deps: { db: Sql; audit: AuditQueries; witnesses: WitnessCommands; timeoutMs?: number }) => {
  const applied = async (position: number) => (await auditProjectedTo(deps.db)) >= position;

  return async <R extends Record<string, unknown>>(tenant: string, receipt: R, position: number | null): Promise<R & { log?: ReceiptLog }> => {
    const kind = receiptEntryKind(receipt);
    if (kind === undefined || typeof receipt.signature !== 'string') return receipt;
    if (position !== null) {
      const deadline = Date.now() + (deps.timeoutMs ?? 10_000);
      for (let wait = 5; !(await applied(position)); wait = Math.min(100, wait * 2)) {
        if (Date.now() > deadline) return receipt;
        await pause(wait);
      }
    }
    const found = await receiptEntry(deps.db, tenant, kind, receipt.signature);
    if (!found) return receipt;
    const cp = await deps.witnesses.note(tenant);
    const { proof } = await deps.audit.inclusion(tenant, found.index, cp.size);
    const tlogProof = formatTlogProof({ index: found.index, proof, checkpoint: cp.note });
    return { ...receipt, log: { index: found.index, entry: found.entry, checkpoint: cp.note, proof, tlog_proof: tlogProof } };
  };
};

export type ProveLogged = ReturnType<typeof receiptLogger>;
