import { createHash } from 'node:crypto';

/**
 * RFC 6962 / RFC 9162 Merkle trees: leaf = SHA-256(0x00 ‖ data), node = SHA-256(0x01 ‖ l ‖ r),
 * empty tree = SHA-256(""). Verification follows the transparency-dev reference, so it passes
 * (and refuses) the same vectors.
 */
export const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);
export const leafHash = (data: Uint8Array) => sha256(LEAF, data);
export const nodeHash = (l: Uint8Array, r: Uint8Array) => sha256(NODE, l, r);
export const EMPTY_ROOT = sha256(Buffer.alloc(0));

const bitLen = (x: bigint) => (x === 0n ? 0 : x.toString(2).length);
const onesCount = (x: bigint) => [...x.toString(2)].filter((c) => c === '1').length;
const trailingZeros = (x: bigint) => {
  let n = 0;
  while (x > 0n && (x & 1n) === 0n) {
    x >>= 1n;
    n++;
  }
  return n;
};

const decompInclProof = (index: bigint, size: bigint) => {
  const inner = bitLen(index ^ (size - 1n));
  return { inner, border: onesCount(index >> BigInt(inner)) };
};

const chainInner = (seed: Buffer, proof: readonly Buffer[], index: bigint) =>
  proof.reduce((acc, h, i) => (((index >> BigInt(i)) & 1n) === 0n ? nodeHash(acc, h) : nodeHash(h, acc)), seed);
const chainInnerRight = (seed: Buffer, proof: readonly Buffer[], index: bigint) =>
  proof.reduce((acc, h, i) => (((index >> BigInt(i)) & 1n) === 1n ? nodeHash(h, acc) : acc), seed);
const chainBorderRight = (seed: Buffer, proof: readonly Buffer[]) => proof.reduce((acc, h) => nodeHash(h, acc), seed);

export const rootFromInclusionProof = (index: number, size: number, leaf: Buffer, proof: readonly Buffer[]): Buffer | null => {
  const i = BigInt(index);
  const n = BigInt(size);
  if (i >= n || leaf.length !== 32) return null;
  const { inner, border } = decompInclProof(i, n);
  if (proof.length !== inner + border) return null;
  return chainBorderRight(chainInner(leaf, proof.slice(0, inner), i), proof.slice(inner));
};

export const verifyInclusion = (index: number, size: number, leaf: Buffer, proof: readonly Buffer[], root: Buffer): boolean => {
  const calc = rootFromInclusionProof(index, size, leaf, proof);
  return calc !== null && calc.equals(root);
};

export const verifyConsistency = (size1: number, size2: number, proof: readonly Buffer[], root1: Buffer, root2: Buffer): boolean => {
  // A proof from the empty tree proves nothing; the reference refuses it, and so do we.
  if (size1 === 0 || size2 < size1) return false;
  if (size1 === size2) return proof.length === 0 && root1.equals(root2);
  if (proof.length === 0) return false;
  const s1 = BigInt(size1);
  const { inner: fullInner, border } = decompInclProof(s1 - 1n, BigInt(size2));
  const shift = trailingZeros(s1);
  const inner = fullInner - shift;
  let seed = proof[0]!;
  let start = 1;
  if (s1 === 1n << BigInt(shift)) {
    seed = root1;
    start = 0;
  }
  if (proof.length !== start + inner + border) return false;
  const rest = proof.slice(start);
  const mask = (s1 - 1n) >> BigInt(shift);
  const hash1 = chainBorderRight(chainInnerRight(seed, rest.slice(0, inner), mask), rest.slice(inner));
  if (!hash1.equals(root1)) return false;
  const hash2 = chainBorderRight(chainInner(seed, rest.slice(0, inner), mask), rest.slice(inner));
  return hash2.equals(root2);
};

/** The largest power of two strictly below n (n > 1). */
const split = (n: number) => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

/**
 * Hashes and proofs over a tree whose complete subtrees are stored: `node(level, index)` is
 * the hash of leaves [index·2^level, (index+1)·2^level). Every range RFC 6962 asks for splits
 * into O(log n) of those.
 */
export interface NodeSource {
  node(level: number, index: number): Promise<Buffer>;
}

export const rangeHash = async (src: NodeSource, start: number, end: number): Promise<Buffer> => {
  const n = end - start;
  if (n === 0) return EMPTY_ROOT;
  if ((n & (n - 1)) === 0 && start % n === 0) return src.node(Math.log2(n), start / n);
  const k = split(n);
  return nodeHash(await rangeHash(src, start, start + k), await rangeHash(src, start + k, end));
};

/** RFC 6962 PATH(m, D[start:end]). */
export const inclusionProof = async (src: NodeSource, m: number, start: number, end: number): Promise<Buffer[]> => {
  const n = end - start;
  if (n <= 1) return [];
  const k = split(n);
  return m < k
    ? [...(await inclusionProof(src, m, start, start + k)), await rangeHash(src, start + k, end)]
    : [...(await inclusionProof(src, m - k, start + k, end)), await rangeHash(src, start, start + k)];
};

/** RFC 6962 SUBPROOF(m, D[start:end], b). */
const subproof = async (src: NodeSource, m: number, start: number, end: number, b: boolean): Promise<Buffer[]> => {
  const n = end - start;
  if (m === n) return b ? [] : [await rangeHash(src, start, end)];
  const k = split(n);
  return m <= k
    ? [...(await subproof(src, m, start, start + k, b)), await rangeHash(src, start + k, end)]
    : [...(await subproof(src, m - k, start + k, end, false)), await rangeHash(src, start, start + k)];
};

export const consistencyProof = async (src: NodeSource, m: number, n: number): Promise<Buffer[]> => (m === 0 || m === n ? [] : subproof(src, m, 0, n, true));

/** MTH(D[0:n]) of leaf hashes held in memory, in O(n): the verifier's full recomputation. */
export const rootOf = (leaves: readonly Buffer[]): Buffer => {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return nodeHash(rootOf(leaves.slice(0, k)), rootOf(leaves.slice(k)));
};
