import { canonicalJson } from '../shared/hash.ts';
import { leafHash, verifyInclusion } from './merkle.ts';
import { parseCheckpointText, parseNote } from './note.ts';
import { parseTlogProof, TLOG_PROOF_V1 } from './tlog-proof.ts';
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
 * The problems of one proof that `entry` is at `index` of the log: `checkpoint` is a note the
 * log's key signed for the receipt's tenant, and `proof` proves the entry's inclusion in the
 * tree it signs. Answers the checkpoint read, for the message.
 */
const inclusionProblems = (publicKeyPem: string, tenant: unknown, index: number, entry: string, checkpoint: string, proof: readonly string[]) => {
  const note = parseNote(checkpoint);
  const cp = note ? parseCheckpointText(note.text) : null;
  if (!note || !cp) return { cp: null, problems: ['its checkpoint is not a signed checkpoint note'] };
  const problems: string[] = [];
  if (!noteSignedByLog(publicKeyPem, note)) problems.push('its checkpoint is not signed by this key');
  if (typeof tenant === 'string' && !cp.origin.endsWith(`/${tenant}`))
    problems.push(`its checkpoint is of the log ${cp.origin}, not of the receipt's tenant ${tenant}`);
  const root = Buffer.from(cp.root, 'base64');
  const hashes = proof.map((p) => Buffer.from(p, 'base64'));
  if (!verifyInclusion(index, cp.size, leafHash(Buffer.from(entry)), hashes, root))
    problems.push(`its entry is not at index ${String(index)} of the tree the checkpoint signs (size ${cp.size})`);
  return { cp, problems };
};

/** The problems of `log.tlog_proof` (c2sp.org/tlog-proof), the same proof as text: each prefixed, so the message says which form failed. */
const tlogProofProblems = (publicKeyPem: string, tenant: unknown, index: number, entry: string, text: unknown): string[] => {
  if (typeof text !== 'string') return ['its tlog_proof is not text'];
  const parsed = parseTlogProof(text);
  if ('problem' in parsed) return [`its tlog_proof is not a ${TLOG_PROOF_V1} proof: ${parsed.problem}`];
  if (parsed.index !== index) return [`its tlog_proof is of index ${parsed.index}, not of the entry's index ${index}`];
  return inclusionProblems(publicKeyPem, tenant, index, entry, parsed.checkpoint, parsed.proof).problems.map((p) => `its tlog_proof: ${p}`);
};

/**
 * Checks offline, with the audit public key alone, that a receipt is in its tenant's audit
 * log: `log.entry` is the entry at `log.index` and holds exactly this receipt (its signed
 * fields and signature), `log.checkpoint` is a note the log's key signed for the receipt's
 * tenant, and `log.proof` proves the entry's inclusion in that checkpoint's tree. When the
 * receipt carries `log.tlog_proof` (the same proof as a c2sp.org/tlog-proof text, which the
 * ecosystem's tools read), that is checked the same way, for the same entry.
 */
export const verifyReceiptLog = (publicKeyPem: string, receipt: Record<string, unknown>): ReceiptLogCheck => {
  const log = receipt.log as { index?: unknown; entry?: unknown; checkpoint?: unknown; proof?: unknown; tlog_proof?: unknown } | undefined;
  if (typeof log !== 'object' || log === null) return { ok: false, problems: ['the receipt carries no proof that it was logged (no log field)'] };
  const { index, entry, checkpoint, proof } = log;
  if (!Number.isSafeInteger(index) || typeof entry !== 'string' || typeof checkpoint !== 'string' || !isStringArray(proof))
    return { ok: false, problems: ['its log field needs index (an integer), entry and checkpoint (text) and proof (base64 hashes)'] };
  const { cp, problems } = inclusionProblems(publicKeyPem, receipt.tenant, index as number, entry, checkpoint, proof);
  if (!cp) return { ok: false, problems };
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
  if (log.tlog_proof !== undefined) problems.push(...tlogProofProblems(publicKeyPem, receipt.tenant, index as number, entry, log.tlog_proof));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, origin: cp.origin, index: index as number, size: cp.size };
};
