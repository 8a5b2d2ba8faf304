/* global atob, btoa, TextEncoder */
// Every proof and signature check the console makes, in the browser's WebCrypto (SPEC §9, §14).
// The pages call only what this module exports: the signing formats (checkpoint text,
// receipt bytes, origins) live here and nowhere else in console/.
// The same file runs under Node's WebCrypto in test/unit/console/verify.unit.test.ts, on the
// RFC 6962 vectors, so what the browser runs is what the vectors prove. No imports: it must
// load as a plain ES module in both places.

const subtle = globalThis.crypto.subtle;
const utf8 = new TextEncoder();

/** Base64 (standard alphabet) to bytes; null for text that is not base64. */
export const fromBase64 = (text) => {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  // Only the one spelling: atob ignores the unused low bits of the last character, so another
  // letter there would decode to the same signature and a changed byte would pass unseen.
  return btoa(raw) === text ? bytes : null;
};

/** Bytes to base64 (standard alphabet). */
export const toBase64 = (bytes) => btoa(String.fromCharCode(...bytes));

const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

const sha256 = async (...parts) => new Uint8Array(await subtle.digest('SHA-256', concat(...parts)));
const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** RFC 6962: leaf = SHA-256(0x00 ‖ data), node = SHA-256(0x01 ‖ l ‖ r). */
export const leafHash = (data) => sha256(Uint8Array.of(0), typeof data === 'string' ? utf8.encode(data) : data);
export const nodeHash = (l, r) => sha256(Uint8Array.of(1), l, r);

// Sizes and indices as BigInt: a tree may outgrow the 32 bits JavaScript's bit operators see.
const bitLen = (x) => (x === 0n ? 0 : x.toString(2).length);
const onesCount = (x) => [...x.toString(2)].filter((c) => c === '1').length;
const trailingZeros = (x) => {
  let n = 0;
  while (x > 0n && (x & 1n) === 0n) {
    x >>= 1n;
    n++;
  }
  return n;
};
const decompInclProof = (index, size) => {
  const inner = bitLen(index ^ (size - 1n));
  return { inner, border: onesCount(index >> BigInt(inner)) };
};

const chainInner = async (seed, proof, index) => {
  for (let i = 0; i < proof.length; i++) seed = ((index >> BigInt(i)) & 1n) === 0n ? await nodeHash(seed, proof[i]) : await nodeHash(proof[i], seed);
  return seed;
};
const chainInnerRight = async (seed, proof, index) => {
  for (let i = 0; i < proof.length; i++) if (((index >> BigInt(i)) & 1n) === 1n) seed = await nodeHash(proof[i], seed);
  return seed;
};
const chainBorderRight = async (seed, proof) => {
  for (const h of proof) seed = await nodeHash(h, seed);
  return seed;
};

/** Inclusion of a leaf hash at `index` in a tree of `size` with `root` (transparency-dev's algorithm). */
export const verifyInclusion = async (index, size, leaf, proof, root) => {
  const i = BigInt(index);
  const n = BigInt(size);
  if (i >= n || leaf.length !== 32) return false;
  const { inner, border } = decompInclProof(i, n);
  if (proof.length !== inner + border) return false;
  const calc = await chainBorderRight(await chainInner(leaf, proof.slice(0, inner), i), proof.slice(inner));
  return equal(calc, root);
};

/** That the tree of `size2` extends the tree of `size1`; a proof from the empty tree proves nothing. */
export const verifyConsistency = async (size1, size2, proof, root1, root2) => {
  if (size1 === 0 || size2 < size1) return false;
  if (size1 === size2) return proof.length === 0 && equal(root1, root2);
  if (proof.length === 0) return false;
  const s1 = BigInt(size1);
  const { inner: fullInner, border } = decompInclProof(s1 - 1n, BigInt(size2));
  const shift = trailingZeros(s1);
  const inner = fullInner - shift;
  let seed = proof[0];
  let start = 1;
  if (s1 === 1n << BigInt(shift)) {
    seed = root1;
    start = 0;
  }
  if (proof.length !== start + inner + border) return false;
  const rest = proof.slice(start);
  const mask = (s1 - 1n) >> BigInt(shift);
  const hash1 = await chainBorderRight(await chainInnerRight(seed, rest.slice(0, inner), mask), rest.slice(inner));
  if (!equal(hash1, root1)) return false;
  const hash2 = await chainBorderRight(await chainInner(seed, rest.slice(0, inner), mask), rest.slice(inner));
  return equal(hash2, root2);
};

/** The audit public key (PEM, SPKI) as a WebCrypto Ed25519 key. */
export const importPublicKey = async (pem) => {
  const body = String(pem)
    .replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '')
    .replace(/\s+/g, '');
  const der = fromBase64(body);
  if (!der) throw new Error('the audit key is not PEM');
  return subtle.importKey('spki', der, { name: 'Ed25519' }, false, ['verify']);
};

const verifySignature = async (key, signatureB64, text) => {
  const signature = fromBase64(signatureB64);
  if (!signature || signature.length !== 64) return false;
  try {
    return await subtle.verify({ name: 'Ed25519' }, key, signature, utf8.encode(text));
  } catch {
    return false;
  }
};

/** A signed checkpoint: Ed25519 over `origin\nsize\nroot\n` (SPEC §9). */
export const checkpointSigned = (key, cp) =>
  cp && typeof cp.origin === 'string' && Number.isSafeInteger(cp.size) && typeof cp.root === 'string'
    ? verifySignature(key, cp.signature, `${cp.origin}\n${cp.size}\n${cp.root}\n`)
    : Promise.resolve(false);

/**
 * RFC 8785 canonical JSON: keys sorted by UTF-16 code units (what Array.prototype.sort
 * compares), numbers and strings as ECMAScript serialises them (which RFC 8785 adopts).
 */
export const canonicalJson = (value) => {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('JSON has no such number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
};

/**
 * Receipts are signed under this prefix, so a receipt's signature can never pass for a
 * checkpoint's nor the reverse (the service's `RECEIPT_PREFIX`).
 */
export const RECEIPT_PREFIX = 'custodian-receipt/v1\n';

/**
 * A receipt (revocation, erasure): Ed25519 over the prefix and the canonical JSON of the object
 * without `signature` and `log` (the proof that it was logged, which proves itself). A receipt
 * issued before the prefix, which carries no `log`, was signed over the canonical JSON alone.
 */
export const receiptSigned = async (key, receipt) => {
  if (!receipt || typeof receipt !== 'object' || Array.isArray(receipt) || typeof receipt.signature !== 'string') return false;
  const { signature, log, ...body } = receipt;
  if (await verifySignature(key, signature, RECEIPT_PREFIX + canonicalJson(body))) return true;
  return log === undefined && verifySignature(key, signature, canonicalJson(body));
};

/** A receipt given as text: one changed byte anywhere (even in a name) either breaks the JSON or the signature. */
export const receiptTextSigned = async (key, text) => {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  return receiptSigned(key, parsed);
};

/**
 * One audit line against a signed checkpoint: its leaf hash from the exact text, the inclusion
 * proof the service gave for it, and the checkpoint's root. The line's own `seq` must be the
 * leaf index the proof is for.
 */
export const lineIncluded = async (line, proof, checkpoint) => {
  let seq;
  try {
    seq = JSON.parse(line).seq;
  } catch {
    return { ok: false, reason: 'the line is not JSON' };
  }
  if (!proof || proof.leaf_index !== seq || proof.tree_size !== checkpoint.size) return { ok: false, reason: 'the proof is for another leaf or tree' };
  const root = fromBase64(checkpoint.root);
  const path = (proof.proof ?? []).map(fromBase64);
  if (!root || path.some((p) => p === null)) return { ok: false, reason: 'the proof is not base64' };
  const leaf = await leafHash(line);
  const shown = { leaf: toBase64(leaf), served_leaf: proof.leaf_hash ?? null, path: proof.proof ?? [] };
  if (!(await verifyInclusion(seq, checkpoint.size, leaf, path, root)))
    return { ok: false, reason: 'the entry is not the one the signed tree holds', ...shown };
  return { ok: true, reason: 'included in the signed tree', ...shown };
};

/**
 * The log a tenant's checkpoints must name, `<log name>/<tenant>` (the log name is the
 * deployment's: the name of its verifier key): a checkpoint of any other log proves nothing for it.
 */
export const originOf = (tenant, logName) => `${logName}/${tenant}`;

/** The log name a note verifier key (`<name>+<hex id>+<base64 key>`) gives. */
export const logNameOf = (vkey) => String(vkey).trim().split('+')[0];

/** A checkpoint of this tenant's log (its origin) whose signature the audit key verifies. */
export const checkpointOfLog = async (key, checkpoint, tenant, logName) => {
  const ofThisLog = !!checkpoint && checkpoint.origin === originOf(tenant, logName);
  return { ofThisLog, signed: ofThisLog && (await checkpointSigned(key, checkpoint)) };
};

/**
 * That `checkpoint` extends `seen` (a checkpoint verified before, kept by the page): both of
 * this tenant's log, `seen` signed, and the consistency proof (`proof`, the service's answer
 * to ?from=seen.size&to=checkpoint.size) holds. Null when there is nothing to compare with.
 */
export const extendsSeen = async (key, seen, checkpoint, tenant, fetchProof, logName) => {
  if (!seen || seen.origin !== originOf(tenant, logName) || !(await checkpointSigned(key, seen)) || seen.size === 0) return null;
  if (checkpoint.origin !== seen.origin) return { ok: false, reason: `the checkpoint is of another log (${checkpoint.origin})` };
  if (seen.size > checkpoint.size) return { ok: false, reason: `the log shrank from ${seen.size} to ${checkpoint.size} entries` };
  let proof;
  try {
    proof = await fetchProof(seen.size, checkpoint.size);
  } catch (error) {
    return { ok: false, reason: `no consistency proof: ${error.message}` };
  }
  const path = (proof?.proof ?? []).map(fromBase64);
  if (path.some((x) => x === null)) return { ok: false, reason: 'the proof is not base64' };
  const ok = await verifyConsistency(seen.size, checkpoint.size, path, fromBase64(seen.root), fromBase64(checkpoint.root));
  return { ok, reason: ok ? '' : 'this tree does not extend the one seen before: history was rewritten', path: proof?.proof ?? [] };
};
