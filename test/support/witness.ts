import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { EMPTY_ROOT, verifyConsistency } from '../../domain/audit/merkle.ts';
import {
  COSIGNATURE_V1,
  cosignedMessage,
  noteKey,
  parseCheckpointText,
  parseNote,
  rawEd25519,
  signatureLine,
  signedBy,
  vkeyOf,
  type NoteKey,
} from '../../domain/audit/note.ts';

export type WitnessAnswer = { status: 200; body: string } | { status: 400 | 403 | 404 | 409 | 422; body: string };

/**
 * A small witness of our own, following c2sp.org/tlog-witness `add-checkpoint`: it trusts one
 * log key per origin, and cosigns (c2sp.org/tlog-cosignature, Ed25519, type 0x04) a checkpoint
 * only when the old size is the size it last cosigned and the consistency proof from that tree
 * to the new one verifies; otherwise it answers the protocol's refusal and cosigns nothing.
 */
export const startWitness = (name: string, logs: Readonly<Record<string, NoteKey>>, now: () => number = () => Date.now()) => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519') as { privateKey: KeyObject; publicKey: KeyObject };
  const key = noteKey(name, COSIGNATURE_V1, rawEd25519(publicKey));
  const latest = new Map<string, { size: number; root: Buffer }>();

  const addCheckpoint = (request: string): WitnessAnswer => {
    const blank = request.indexOf('\n\n');
    if (blank < 0) return { status: 400, body: 'no blank line before the checkpoint\n' };
    const head = request.slice(0, blank).split('\n');
    const old = /^old (0|[1-9][0-9]*)$/.exec(head[0] ?? '');
    const note = parseNote(request.slice(blank + 2));
    const cp = note ? parseCheckpointText(note.text) : null;
    if (!old || !note || !cp || head.length - 1 > 63) return { status: 400, body: 'malformed add-checkpoint request\n' };
    const logKey = logs[cp.origin];
    if (!logKey) return { status: 404, body: `unknown origin ${cp.origin}\n` };
    if (signedBy(note, logKey) !== true) return { status: 403, body: 'no valid signature of the log key\n' };
    const oldSize = Number(old[1]);
    if (oldSize > cp.size) return { status: 400, body: 'old size beyond the checkpoint size\n' };
    const seen = latest.get(cp.origin) ?? { size: 0, root: EMPTY_ROOT };
    if (oldSize !== seen.size) return { status: 409, body: `${seen.size}\n` };
    const proof = head.slice(1).map((l) => Buffer.from(l, 'base64'));
    const root = Buffer.from(cp.root, 'base64');
    const consistent =
      oldSize === 0
        ? proof.length === 0 && (cp.size > 0 || root.equals(EMPTY_ROOT))
        : oldSize === cp.size
          ? root.equals(seen.root)
          : verifyConsistency(oldSize, cp.size, proof, seen.root, root);
    if (!consistent) return { status: 422, body: 'the checkpoint is not consistent with the last one cosigned\n' };
    latest.set(cp.origin, { size: cp.size, root });
    const timestamp = BigInt(Math.floor(now() / 1000));
    const ts = Buffer.alloc(8);
    ts.writeBigUInt64BE(timestamp);
    const sig = sign(null, cosignedMessage(note.text, timestamp), privateKey);
    return { status: 200, body: `${signatureLine(key.name, key.id, Buffer.concat([ts, sig]))}\n` };
  };

  return { key, vkey: vkeyOf(key), addCheckpoint, latest: (origin: string) => latest.get(origin)?.size ?? 0 };
};

/** An add-checkpoint request body: the old size, the proof lines, a blank line, the note (the service's own). */
export { addCheckpointBody } from '../../domain/audit/witness-protocol.ts';
