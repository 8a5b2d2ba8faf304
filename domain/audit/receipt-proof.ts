import { canonicalJson } from '../shared/hash.ts';
import { leafHash, verifyInclusion } from './merkle.ts';
import { parseCheckpointText, parseNote } from './note.ts';
import { noteSignedByLog } from './verify.ts';

/** The audit entry kind that carries each receipt kind. */
const ENTRY_KIND: Readonly<Record<string, string>> = { revocation_batch: 'revocation_receipt', erasure: 'erasure' };

/**
 * The kind of the audit entry that carries a receipt, or undefined for a receipt that is not
 * logged: an erasure's is `erasure` when it completed, `erasure_deferred` when it did not.
 */
export const receiptEntryKind = (receipt: Readonly<Record<string, unknown>>): string | undefined => {
  if (typeof receipt.kind !== 'string' || !Object.hasOwn(ENTRY_KIND, receipt.kind)) return undefined;
  return receipt.kind === 'erasure' && receipt.complete === false ? 'erasure_deferred' : ENTRY_KIND[receipt.kind];
};

export type ReceiptLogCheck = { ok: true; origin: string; index: number; size: number } | { ok: false; problems: string[] };

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Checks offline, with the audit public key alone, that a receipt is in its tenant's audit
 * log: `log.entry` is the entry at `log.index` and holds exactly this receipt (its signed
 * fields and signature), `log.checkpoint` is a note the log's key signed for the receipt's
 * tenant, and `log.proof` proves the entry's inclusion in that checkpoint's tree.
 */
export const verifyReceiptLog = (publicKeyPem: string, receipt: Record<string, unknown>): ReceiptLogCheck => {
  const log = receipt.log as { index?: unknown; entry?: unknown; checkpoint?: unknown; proof?: unknown } | undefined;
  if (typeof log !== 'object' || log === null) return { ok: false, problems: ['the receipt carries no proof that it was logged (no log field)'] };
  const { index, entry, checkpoint, proof } = log;
  if (!Number.isSafeInteger(index) || typeof entry !== 'string' || typeof checkpoint !== 'string' || !isStringArray(proof))
    return { ok: false, problems: ['its log field needs index (an integer), entry and checkpoint (text) and proof (base64 hashes)'] };
  const problems: string[] = [];
  const note = parseNote(checkpoint);
  const cp = note ? parseCheckpointText(note.text) : null;
  if (!note || !cp) return { ok: false, problems: ['its checkpoint is not a signed checkpoint note'] };
  if (!noteSignedByLog(publicKeyPem, note)) problems.push('its checkpoint is not signed by this key');
  if (typeof receipt.tenant === 'string' && !cp.origin.endsWith(`/${receipt.tenant}`))
    problems.push(`its checkpoint is of the log ${cp.origin}, not of the receipt's tenant ${receipt.tenant}`);
  let parsed: Record<string, unknown> | null = null;
  try {
    parsed = JSON.parse(entry) as Record<string, unknown>;
  } catch {
    problems.push('its entry is not JSON');
  }
  if (parsed) {
    const { log: _log, ...signed } = receipt;
    if (parsed.seq !== index) problems.push(`its entry is at seq ${String(parsed.seq)}, not at index ${String(index)}`);
    if (parsed.kind !== receiptEntryKind(receipt))
      problems.push(`its entry is a ${String(parsed.kind)} entry, not the entry of a ${String(receipt.kind)} receipt`);
    if (canonicalJson(parsed.receipt ?? null) !== canonicalJson(signed)) problems.push('its entry holds another receipt than this one');
  }
  if (
    !verifyInclusion(
      index as number,
      cp.size,
      leafHash(Buffer.from(entry)),
      proof.map((p) => Buffer.from(p, 'base64')),
      Buffer.from(cp.root, 'base64'),
    )
  )
    problems.push(`its entry is not at index ${String(index)} of the tree the checkpoint signs (size ${cp.size})`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, origin: cp.origin, index: index as number, size: cp.size };
};
