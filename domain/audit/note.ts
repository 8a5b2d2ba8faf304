import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * C2SP signed notes (c2sp.org/signed-note): a text ending in a newline, a blank line, then
 * signature lines `— <key name> base64(key id ‖ signature)`. A key is named by its name and
 * a 4-byte id, SHA-256(name ‖ "\n" ‖ type ‖ public key)[:4]; its verifier key (vkey) is
 * `<name>+<hex id>+base64(type ‖ public key)`. Type 0x01 signs the note text with Ed25519
 * (the log's checkpoints); type 0x04 is a witness's timestamped cosignature
 * (c2sp.org/tlog-cosignature) over `cosignature/v1\ntime <t>\n` ‖ the note text.
 */
export const ED25519 = 0x01;
export const COSIGNATURE_V1 = 0x04;
const DASH = '\u2014 ';

export interface NoteKey {
  readonly name: string;
  readonly type: number;
  readonly id: number;
  /** The 32-byte Ed25519 public key. */
  readonly key: Buffer;
}

export interface NoteSignature {
  readonly name: string;
  readonly id: number;
  /** The signature bytes after the key id. */
  readonly signature: Buffer;
  /** The whole line, without its newline. */
  readonly line: string;
}

export interface Note {
  /** The signed text, ending in its newline. */
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

/** No spaces (any Unicode space), no plus, not empty (the note specification). */
export const validKeyName = (name: string) => name.length > 0 && !/[\s+]/u.test(name) && !/\p{Zs}/u.test(name);

export const keyIdOf = (name: string, type: number, key: Uint8Array): number =>
  createHash('sha256')
    .update(name)
    .update('\n')
    .update(Buffer.from([type]))
    .update(key)
    .digest()
    .readUInt32BE(0);

const hex8 = (id: number) => id.toString(16).padStart(8, '0');

export const noteKey = (name: string, type: number, key: Buffer): NoteKey => ({ name, type, id: keyIdOf(name, type, key), key });

export const vkeyOf = (k: NoteKey) => `${k.name}+${hex8(k.id)}+${Buffer.concat([Buffer.from([k.type]), k.key]).toString('base64')}`;

/** A vkey's parts, or null when it is not one (a wrong id, a key that is not 32 bytes, an unknown type). */
export const parseVkey = (vkey: string): NoteKey | null => {
  // The name and the id hold no plus sign; the base64 key may (as note.NewVerifier reads it).
  const text = vkey.trim();
  const first = text.indexOf('+');
  const second = first < 0 ? -1 : text.indexOf('+', first + 1);
  if (second < 0) return null;
  const [name, id, b64] = [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
  if (!validKeyName(name) || !/^[0-9a-f]{8}$/.test(id) || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return null;
  const raw = Buffer.from(b64, 'base64');
  const type = raw[0];
  if (raw.length !== 33 || (type !== ED25519 && type !== COSIGNATURE_V1)) return null;
  const key = noteKey(name, type, raw.subarray(1));
  return key.id === Number.parseInt(id, 16) ? key : null;
};

/** The raw 32 bytes of an Ed25519 public key. */
export const rawEd25519 = (publicKey: KeyObject): Buffer => Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');

const keyObject = (raw: Buffer) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });

export const signatureLine = (name: string, id: number, signature: Uint8Array) => {
  const idBytes = Buffer.alloc(4);
  idBytes.writeUInt32BE(id);
  return `${DASH}${name} ${Buffer.concat([idBytes, signature]).toString('base64')}`;
};

export const formatNote = (text: string, lines: readonly string[]) => `${text}\n${lines.map((l) => `${l}\n`).join('')}`;

/**
 * Splits a note as the note specification reads it: the text up to the last blank line, then
 * one signature line per line. Null when it is not a note (control characters, no blank line,
 * a malformed line, more than 100 signatures).
 */
export const parseNote = (note: string): Note | null => {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note) || note.includes('\uFFFD')) return null;
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return null;
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block.length === 0 || !block.endsWith('\n')) return null;
  const signatures: NoteSignature[] = [];
  for (const line of block.slice(0, -1).split('\n')) {
    if (!line.startsWith(DASH)) return null;
    const rest = line.slice(DASH.length);
    const space = rest.indexOf(' ');
    const name = space < 0 ? rest : rest.slice(0, space);
    const b64 = space < 0 ? '' : rest.slice(space + 1);
    if (!validKeyName(name) || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return null;
    const raw = Buffer.from(b64, 'base64');
    if (raw.length < 5) return null;
    signatures.push({ name, id: raw.readUInt32BE(0), signature: raw.subarray(4), line });
  }
  return signatures.length > 100 ? null : { text, signatures };
};

/** The message a type 0x04 cosignature signs, and its timestamp (seconds) read from the signature. */
export const cosignedMessage = (text: string, timestamp: bigint) => Buffer.from(`cosignature/v1\ntime ${timestamp}\n${text}`);

/** Whether `sig` is a valid signature of `key` over the note text: by its type, as the specifications define. */
export const signatureVerifies = (key: NoteKey, text: string, sig: NoteSignature): boolean => {
  if (sig.name !== key.name || sig.id !== key.id) return false;
  try {
    if (key.type === ED25519) return sig.signature.length === 64 && verify(null, Buffer.from(text), keyObject(key.key), sig.signature);
    if (sig.signature.length !== 72) return false;
    const timestamp = sig.signature.readBigUInt64BE(0);
    return timestamp < 2n ** 63n && verify(null, cosignedMessage(text, timestamp), keyObject(key.key), sig.signature.subarray(8));
  } catch {
    return false;
  }
};

/** The key's signature of the note, when there is one: verified (true), failing (false), or absent (null). */
export const signedBy = (note: Note, key: NoteKey): boolean | null => {
  const sig = note.signatures.find((s) => s.name === key.name && s.id === key.id);
  return sig ? signatureVerifies(key, note.text, sig) : null;
};

export interface CheckpointBody {
  readonly origin: string;
  readonly size: number;
  readonly root: string;
}

/** A tlog-checkpoint note text: origin, decimal size without leading zeros, base64 root of 32 bytes, then optional extension lines. */
export const parseCheckpointText = (text: string): CheckpointBody | null => {
  const lines = text.split('\n');
  if (lines.length < 4 || lines.at(-1) !== '' || lines.slice(0, -1).some((l) => l === '')) return null;
  const [origin, size, root] = lines as [string, string, string];
  if (!/^(0|[1-9][0-9]{0,15})$/.test(size) || !Number.isSafeInteger(Number(size))) return null;
  if (!/^[A-Za-z0-9+/]{43}=$/.test(root)) return null;
  return { origin, size: Number(size), root };
};
