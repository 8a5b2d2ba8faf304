import { EMPTY_ROOT, nodeHash } from './merkle.ts';

/**
 * The right edge of an RFC 6962 tree grown one leaf at a time (the compact range [0, n)): the
 * roots of the complete subtrees that cover the leaves so far, biggest first, one per set bit
 * of n. Appending merges the equal-sized subtrees the new leaf completes; the root folds the
 * edge from the right. O(log n) memory, so a verifier recomputes the root of a log of any size
 * while it reads it.
 */
export const createFrontier = () => {
  const edge: Buffer[] = [];
  let size = 0;
  return {
    push(leaf: Buffer) {
      let hash = leaf;
      for (let n = size; (n & 1) === 1; n = Math.floor(n / 2)) hash = nodeHash(edge.pop()!, hash);
      edge.push(hash);
      size++;
    },
    get size() {
      return size;
    },
    /** MTH(D[0:size]). */
    root(): Buffer {
      if (edge.length === 0) return EMPTY_ROOT;
      let hash = edge.at(-1)!;
      for (let i = edge.length - 2; i >= 0; i--) hash = nodeHash(edge[i]!, hash);
      return hash;
    },
  };
};

export type Frontier = ReturnType<typeof createFrontier>;
