import { createPublicKey, verify } from 'node:crypto';
import { checkpointText } from './entries.ts';
import { leafHash, rootOf, verifyConsistency, verifyInclusion } from './merkle.ts';

export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: string;
  readonly signature: string;
}

/** What `custodian audit download` saves and `audit verify` checks with the public key alone. */
export interface AuditBundle {
  readonly checkpoint: Checkpoint;
  readonly entries: readonly string[];
  /** Inclusion proof of each entry in the checkpoint's tree. */
  readonly proofs: readonly (readonly string[])[];
  /** A checkpoint taken earlier, and the proof that this tree extends it. */
  readonly previous?: { readonly checkpoint: Checkpoint; readonly proof: readonly string[] };
}

const b64 = (s: string) => Buffer.from(s, 'base64');

export const checkpointSigned = (publicKeyPem: string, cp: Checkpoint): boolean => {
  try {
    return verify(null, Buffer.from(checkpointText(cp.origin, cp.size, cp.root)), createPublicKey(publicKeyPem), b64(cp.signature));
  } catch {
    return false;
  }
};

/**
 * Checks a downloaded audit log offline: the checkpoint's signature, every entry's inclusion
 * proof (which names an altered entry), a full recomputation of the root, and, when given, the
 * consistency of an earlier checkpoint with this one. Answers every problem found.
 */
export const verifyBundle = (publicKeyPem: string, b: AuditBundle): string[] => {
  const problems: string[] = [];
  const cp = b.checkpoint;
  if (!checkpointSigned(publicKeyPem, cp)) problems.push('the checkpoint signature does not verify with this public key');
  if (b.entries.length !== cp.size) problems.push(`the checkpoint covers ${cp.size} entries, the log holds ${b.entries.length}`);
  const root = b64(cp.root);
  const leaves = b.entries.map((e) => leafHash(Buffer.from(e)));
  b.entries.forEach((entry, i) => {
    let seq: unknown;
    try {
      seq = (JSON.parse(entry) as { seq?: unknown }).seq;
    } catch {
      seq = undefined;
    }
    if (seq !== i) problems.push(`entry ${i}: its seq is ${String(seq)}`);
    if (!verifyInclusion(i, cp.size, leaves[i]!, (b.proofs[i] ?? []).map(b64), root))
      problems.push(`entry ${i} (seq ${String(seq)}) is not the entry the signed tree holds: it was altered`);
  });
  if (b.entries.length === cp.size && !rootOf(leaves).equals(root)) problems.push('the root recomputed from the whole log differs from the signed root');
  if (b.previous) {
    const prev = b.previous.checkpoint;
    if (!checkpointSigned(publicKeyPem, prev)) problems.push('the earlier checkpoint signature does not verify');
    else if (prev.origin !== cp.origin) problems.push('the two checkpoints are of different logs');
    else if (!verifyConsistency(prev.size, cp.size, b.previous.proof.map(b64), b64(prev.root), root))
      problems.push(`the log of size ${cp.size} does not extend the earlier checkpoint of size ${prev.size}`);
  }
  return problems;
};
