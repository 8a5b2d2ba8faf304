import { createPublicKey } from 'node:crypto';
import { checkpointText } from './entries.ts';
import { leafHash, rootOf, verifyConsistency, verifyInclusion } from './merkle.ts';
import { ED25519, keyIdOf, parseCheckpointText, parseNote, rawEd25519, signatureVerifies, signedBy, type Note, type NoteKey } from './note.ts';

export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: string;
  readonly signature: string;
  /** The same checkpoint as a C2SP signed note, with every witness cosignature (served since notes were). */
  readonly note?: string;
}

/** What `custodian audit download` saves and `audit verify` checks with the public key alone. */
export interface AuditBundle {
  readonly checkpoint: Checkpoint;
  readonly entries: readonly string[];
  /** Inclusion proof of each entry in the checkpoint's tree (bundles downloaded before tiles were served). */
  readonly proofs?: readonly (readonly string[])[];
  /**
   * The level-0 hash tiles of the checkpoint's tree (c2sp.org/tlog-tiles), base64, in order:
   * the signed tree's leaf hash of every entry, which names an altered entry.
   */
  readonly tiles?: readonly string[];
  /** A checkpoint taken earlier, and the proof that this tree extends it. */
  readonly previous?: { readonly checkpoint: Checkpoint; readonly proof: readonly string[] };
}

/** Which log the auditor means, and what else they require. */
export interface Expected {
  /** The exact origin (`--origin`). */
  readonly origin?: string;
  /** The tenant (`--tenant`): the origin is `<log name>/<tenant>`, the log name the vkey's when one is given. */
  readonly tenant?: string;
  /** The log's verifier key (`--vkey`): pins the key and the log's name. */
  readonly logKey?: NoteKey;
  /** Witnesses that must have cosigned the checkpoint (`--witness`). */
  readonly witnesses?: readonly NoteKey[];
}

const b64 = (s: string) => Buffer.from(s, 'base64');

/** The 32-byte leaf hashes of level-0 hash tiles, in order (a tile that is not whole hashes gives none, so the count shows it). */
const leavesOfTiles = (tiles: readonly string[]): Buffer[] =>
  tiles.flatMap((t) => {
    const bytes = b64(t);
    return bytes.length % 32 === 0 ? Array.from({ length: bytes.length / 32 }, (_, i) => bytes.subarray(i * 32, i * 32 + 32)) : [];
  });

/** The log's key as a note key under `name`: from its vkey when given, else the PEM key under the name the note's signature line uses. */
const logKeyFor = (publicKeyPem: string, name: string, pinned?: NoteKey): NoteKey | null => {
  if (pinned) return pinned;
  try {
    const key = rawEd25519(createPublicKey(publicKeyPem));
    return { name, type: ED25519, id: keyIdOf(name, ED25519, key), key };
  } catch {
    return null;
  }
};

/** Whether the log's key signed the note (some signature line of it verifies). */
export const noteSignedByLog = (publicKeyPem: string, note: Note, pinned?: NoteKey): boolean =>
  note.signatures.some((s) => {
    const key = logKeyFor(publicKeyPem, s.name, pinned);
    return key !== null && s.id === key.id && signatureVerifies(key, note.text, s);
  });

/** A JSON checkpoint's signature: Ed25519 over the note text `origin\nsize\nroot\n`. */
export const checkpointSigned = (publicKeyPem: string, cp: Checkpoint, pinned?: NoteKey): boolean => {
  const text = checkpointText(cp.origin, cp.size, cp.root);
  const sig = { name: pinned?.name ?? 'log', id: 0, signature: b64(cp.signature), line: '' };
  const key = logKeyFor(publicKeyPem, sig.name, pinned);
  return key !== null && signatureVerifies(key, text, { ...sig, id: key.id });
};

/** The problem with the bundle's origin, or null when it is the log the auditor means. */
export const originProblem = (origin: string, expected: Expected): string | null => {
  if (expected.origin !== undefined && origin !== expected.origin) return `the checkpoint is of the log ${origin}, not of ${expected.origin}`;
  if (expected.tenant !== undefined) {
    const want = expected.logKey ? `${expected.logKey.name}/${expected.tenant}` : null;
    if (want !== null && origin !== want) return `the checkpoint is of the log ${origin}, not of ${want} (tenant ${expected.tenant} of the log the key names)`;
    if (!origin.endsWith(`/${expected.tenant}`) || origin.length === expected.tenant.length + 1)
      return `the checkpoint is of the log ${origin}, not of tenant ${expected.tenant}`;
  }
  return null;
};

/** The problems of the checkpoint's note form: its text, the log's signature, each required witness's cosignature. */
const noteProblems = (publicKeyPem: string, cp: Checkpoint, expected: Expected): string[] => {
  const witnesses = expected.witnesses ?? [];
  if (cp.note === undefined)
    return witnesses.length > 0 ? ['the bundle holds no checkpoint note, so no witness cosignature: download it again from a service that serves notes'] : [];
  const note = parseNote(cp.note);
  if (!note) return ['the checkpoint note is not a signed note'];
  const body = parseCheckpointText(note.text);
  if (!body || note.text !== checkpointText(cp.origin, cp.size, cp.root)) return ['the checkpoint note signs another tree head than the checkpoint'];
  const problems = noteSignedByLog(publicKeyPem, note, expected.logKey) ? [] : ['the checkpoint note is not signed by this key'];
  for (const w of witnesses) {
    const cosigned = signedBy(note, w);
    if (cosigned === false) problems.push(`the cosignature of witness ${w.name} does not verify`);
    if (cosigned === null)
      problems.push(`witness ${w.name} did not cosign this checkpoint: it has not seen this tree, or refused it as inconsistent with the history it saw`);
  }
  return problems;
};

/**
 * The problems of a bundle's head, which hold whatever form its entries come in: that it is
 * the log the auditor means (its origin), the checkpoint's signature (and its note's, and the
 * required witnesses' cosignatures), and, when given, the consistency of an earlier checkpoint.
 */
export const headProblems = (publicKeyPem: string, cp: Checkpoint, previous: AuditBundle['previous'], expected: Expected = {}): string[] => {
  const problems: string[] = [];
  const origin = originProblem(cp.origin, expected);
  if (origin) problems.push(origin);
  if (!checkpointSigned(publicKeyPem, cp, expected.logKey)) problems.push('the checkpoint signature does not verify with this public key');
  problems.push(...noteProblems(publicKeyPem, cp, expected));
  if (previous) {
    const prev = previous.checkpoint;
    if (!checkpointSigned(publicKeyPem, prev, expected.logKey)) problems.push('the earlier checkpoint signature does not verify');
    else if (prev.origin !== cp.origin) problems.push('the two checkpoints are of different logs');
    else if (!verifyConsistency(prev.size, cp.size, previous.proof.map(b64), b64(prev.root), b64(cp.root)))
      problems.push(`the log of size ${cp.size} does not extend the earlier checkpoint of size ${prev.size}`);
  }
  return problems;
};

/** An entry's seq, or undefined when it is not JSON holding one. */
export const seqOf = (entry: string): unknown => {
  try {
    return (JSON.parse(entry) as { seq?: unknown }).seq;
  } catch {
    return undefined;
  }
};

/** The problem of entry `i`, whose hash the signed tree does not hold: it names the entry. */
export const alteredEntry = (i: number, seq: unknown) => `entry ${i} (seq ${String(seq)}) is not the entry the signed tree holds: it was altered`;

/**
 * Checks a downloaded audit log held in one document (the form downloads wrote before they
 * were streamed) offline: its head (headProblems), every entry's inclusion proof or tile hash
 * (which names an altered entry) and a full recomputation of the root. Answers every problem found.
 */
export const verifyBundle = (publicKeyPem: string, b: AuditBundle, expected: Expected = {}): string[] => {
  const cp = b.checkpoint;
  const problems = headProblems(publicKeyPem, cp, b.previous, expected);
  if (b.entries.length !== cp.size) problems.push(`the checkpoint covers ${cp.size} entries, the log holds ${b.entries.length}`);
  const root = b64(cp.root);
  const leaves = b.entries.map((e) => leafHash(Buffer.from(e)));
  const tileLeaves = b.tiles ? leavesOfTiles(b.tiles) : null;
  if (tileLeaves && (tileLeaves.length !== cp.size || !rootOf(tileLeaves).equals(root)))
    problems.push("the bundle's hash tiles do not give the signed root: they are not this tree's");
  b.entries.forEach((entry, i) => {
    const seq = seqOf(entry);
    if (seq !== i) problems.push(`entry ${i}: its seq is ${String(seq)}`);
    const held = b.proofs ? verifyInclusion(i, cp.size, leaves[i]!, (b.proofs[i] ?? []).map(b64), root) : (tileLeaves?.[i]?.equals(leaves[i]!) ?? true);
    if (!held) problems.push(alteredEntry(i, seq));
  });
  if (b.entries.length === cp.size && !rootOf(leaves).equals(root)) problems.push('the root recomputed from the whole log differs from the signed root');
  return problems;
};
