import type { Sql } from '../domain/ports/read-model.ts';
import type { AuditQueries } from '../queries/audit.ts';
import type { WitnessCommands } from './audit-witnesses.ts';

/** Where a receipt's entry was logged: its index, the entry as hashed, a signed checkpoint that includes it and the inclusion proof. */
export interface ReceiptLog {
  readonly index: number;
  readonly entry: string;
  readonly checkpoint: string;
  readonly proof: readonly string[];
}

/** The audit entry kind that carries each receipt kind. */
const ENTRY_KIND: Readonly<Record<string, string>> = { revocation_batch: 'revocation_receipt', erasure: 'erasure' };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Finishes a receipt with the proof that it was logged (`log`). The audit log is projected
 * asynchronously, so this waits (as reads wait for durability) until the audit projection has
 * applied the event that carries the receipt, then finds its entry, signs a checkpoint of the
 * log as it is now — which includes the entry — and proves the entry's inclusion in it. When
 * the projection does not get there within `timeoutMs` the receipt is answered without `log`.
 */
export const receiptLogger = (deps: { db: Sql; audit: AuditQueries; witnesses: WitnessCommands; timeoutMs?: number }) => {
  const applied = async (position: number) => {
    const { rows } = await deps.db.query<{ position: string }>("SELECT position FROM custodian_checkpoints WHERE name = 'audit'");
    return Number(rows[0]?.position ?? 0) >= position;
  };

  const entryOf = async (tenant: string, kind: string, signature: string) => {
    // The newest matching entry: a receipt's entry is recent, so the scan from the end stops soon.
    const { rows } = await deps.db.query<{ seq: string; line: string }>(
      'SELECT seq, line FROM rm_audit WHERE tenant = $1 AND kind = $2 AND strpos(line, $3) > 0 ORDER BY seq DESC LIMIT 1',
      [tenant, kind, `"signature":${JSON.stringify(signature)}`],
    );
    return rows[0] ? { index: Number(rows[0].seq), entry: rows[0].line } : null;
  };

  return async <R extends Record<string, unknown>>(tenant: string, receipt: R, position: number | null): Promise<R & { log?: ReceiptLog }> => {
    const kind = typeof receipt.kind === 'string' ? ENTRY_KIND[receipt.kind] : undefined;
    if (kind === undefined || typeof receipt.signature !== 'string') return receipt;
    if (position !== null) {
      const deadline = Date.now() + (deps.timeoutMs ?? 10_000);
      for (let wait = 5; !(await applied(position)); wait = Math.min(100, wait * 2)) {
        if (Date.now() > deadline) return receipt;
        await pause(wait);
      }
    }
    const found = await entryOf(tenant, kind, receipt.signature);
    if (!found) return receipt;
    const cp = await deps.witnesses.note(tenant);
    const { proof } = await deps.audit.inclusion(tenant, found.index, cp.size);
    return { ...receipt, log: { index: found.index, entry: found.entry, checkpoint: cp.note, proof } };
  };
};

export type ProveLogged = ReturnType<typeof receiptLogger>;
