import { randomFillSync } from 'node:crypto';

/** Bytes drawn from the CSPRNG at a time: one call where a put needed three. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

/**
 * `n` bytes from the operating system's CSPRNG, as `randomBytes(n)` gives them, drawn from a
 * pool filled 4 KiB at a time (as node does for `randomUUID`): each byte is handed out once,
 * as the only copy. A call into the CSPRNG costs a few microseconds whatever its
 * size, and every put takes a nonce per sealed value and a fresh data key.
 */
export const freshBytes = (n: number): Buffer => {
  if (n > POOL_BYTES) return randomFillSync(Buffer.alloc(n));
  if (used + n > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_BYTES));
    used = 0;
  }
  // Memory of its own (not node's shared 8 KiB slab): a data key kept in a cache pins nothing
  // else. Its bytes are wiped from the pool, so the caller's copy is the only one.
  const out = Buffer.allocUnsafeSlow(n);
  pool.copy(out, 0, used, used + n);
  pool.fill(0, used, used + n);
  used += n;
  return out;
};
