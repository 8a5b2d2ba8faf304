import { describe, expect, it } from 'vitest';
import { freshBytes } from '../../../adapters/keys/fresh-bytes.ts';

describe('fresh bytes (nonces and data keys) hand out each random byte once', () => {
  it('given 3,000 draws of 12 and 32 bytes across many pool refills, then each has its length, in memory of its own, and no two are equal', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3_000; i++) {
      const n = i % 2 === 0 ? 12 : 32;
      const bytes = freshBytes(n);
      expect(bytes).toHaveLength(n);
      // A data key kept in a cache pins no shared slab.
      expect(bytes.buffer.byteLength).toBe(n);
      seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(3_000);
  });

  it('given a draw larger than the pool, then it has its length and is not the draw before it', () => {
    const a = freshBytes(5_000);
    const b = freshBytes(5_000);
    expect(a).toHaveLength(5_000);
    expect(a.equals(b)).toBe(false);
  });
});
