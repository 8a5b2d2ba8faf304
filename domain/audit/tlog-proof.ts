/**
 * C2SP tlog-proof (c2sp.org/tlog-proof): an offline proof that an entry is in a log, as text —
 * the header line `c2sp.org/tlog-proof@v1`, an optional `extra <base64>` line, `index <n>`
 * (decimal, no leading zeros), the RFC 6962 inclusion proof (one base64 SHA-256 hash a line,
 * from the leaf's sibling up), an empty line, then the signed checkpoint note verbatim. The
 * entry itself is not in the text: the verifier hashes the entry it holds.
 */
export const TLOG_PROOF_V1 = 'c2sp.org/tlog-proof@v1';

export interface TlogProof {
  readonly index: number;
  /** The inclusion proof, base64. */
  readonly proof: readonly string[];
  /** The checkpoint note, with its signature lines. */
  readonly checkpoint: string;
  /** Opaque and unauthenticated (the specification): never trusted. */
  readonly extra?: Buffer;
}

/** The proof as text. */
export const formatTlogProof = (p: TlogProof): string =>
  [
    TLOG_PROOF_V1,
    ...(p.extra ? [`extra ${p.extra.toString('base64')}`] : []),
    `index ${p.index}`,
    ...p.proof,
    '',
    // The note ends in its newline; the text is the lines above, then the note as it is.
  ].join('\n') +
  '\n' +
  p.checkpoint;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const isHash = (s: string) => BASE64.test(s) && Buffer.from(s, 'base64').length === 32 && Buffer.from(s, 'base64').toString('base64') === s;

/** The proof a text holds, or what is wrong with it. */
export const parseTlogProof = (text: string): TlogProof | { problem: string } => {
  const lines = text.split('\n');
  if (lines[0] !== TLOG_PROOF_V1) return { problem: `it does not start with the line ${TLOG_PROOF_V1}` };
  let at = 1;
  let extra: Buffer | undefined;
  if (lines[at]?.startsWith('extra ')) {
    const b64 = lines[at]!.slice('extra '.length);
    if (!BASE64.test(b64)) return { problem: 'its extra line is not base64' };
    extra = Buffer.from(b64, 'base64');
    at++;
  }
  const index = /^index (0|[1-9][0-9]{0,15})$/.exec(lines[at] ?? '');
  if (!index || !Number.isSafeInteger(Number(index[1]))) return { problem: 'its index line is not "index <n>" (decimal, no leading zeros)' };
  at++;
  const proof: string[] = [];
  for (; at < lines.length && lines[at] !== ''; at++) {
    if (!isHash(lines[at]!)) return { problem: `its proof line ${proof.length + 1} is not a base64 SHA-256 hash` };
    proof.push(lines[at]!);
  }
  if (at >= lines.length) return { problem: 'it has no empty line before its checkpoint' };
  const checkpoint = lines.slice(at + 1).join('\n');
  if (checkpoint === '') return { problem: 'it holds no checkpoint' };
  return { index: Number(index[1]), proof, checkpoint, ...(extra ? { extra } : {}) };
};
