import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  rangeHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
  type NodeSource,
} from '../../../domain/audit/merkle.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
// A copy of ../shared/vectors/rfc6962 (Apache-2.0, LICENSE beside it), so a clone tests alone.
const vectors = path.resolve(here, '../../fixtures/rfc6962');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.json') ? [p] : [];
  });
const b64 = (s: string | null | undefined) => Buffer.from(s ?? '', 'base64');
const proof = (p: string[] | null | undefined) => (p ?? []).map(b64);
const name = (f: string) => path.relative(vectors, f);

describe('the audit verifier passes every RFC 6962 vector (the wantErr cases refused)', () => {
  const inclusion = files(path.join(vectors, 'inclusion'));
  const consistency = files(path.join(vectors, 'consistency'));
  it('finds the vectors', () => {
    expect(inclusion.length).toBeGreaterThan(50);
    expect(consistency.length).toBeGreaterThan(50);
  });

  it.each(inclusion.map((f) => [name(f), f]))('inclusion %s', (_n, file) => {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    expect(verifyInclusion(v.leafIdx, v.treeSize, b64(v.leafHash), proof(v.proof), b64(v.root))).toBe(!v.wantErr);
  });

  it.each(consistency.map((f) => [name(f), f]))('consistency %s', (_n, file) => {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    expect(verifyConsistency(v.size1, v.size2, proof(v.proof), b64(v.root1), b64(v.root2))).toBe(!v.wantErr);
  });
});

describe('proofs built from stored subtrees verify', () => {
  const leaves = Array.from({ length: 37 }, (_, i) => leafHash(Buffer.from(`entry ${i}`)));
  const src: NodeSource = { node: async (level, index) => rootOf(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)) };
  it('inclusion and consistency for every size', async () => {
    for (let size = 1; size <= leaves.length; size++) {
      const root = await rangeHash(src, 0, size);
      expect(root.equals(rootOf(leaves.slice(0, size)))).toBe(true);
      for (let i = 0; i < size; i += 3) expect(verifyInclusion(i, size, leaves[i]!, await inclusionProof(src, i, 0, size), root)).toBe(true);
      for (let m = 1; m <= size; m += 4) {
        const p = await consistencyProof(src, m, size);
        expect(verifyConsistency(m, size, p, await rangeHash(src, 0, m), root)).toBe(true);
      }
    }
    expect(verifyInclusion(2, 10, leaves[3]!, await inclusionProof(src, 2, 0, 10), await rangeHash(src, 0, 10))).toBe(false);
  });
});
