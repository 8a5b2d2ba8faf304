import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Compares hashes so neither the key's length nor its prefix leaks through timing. */
export const adminKeyMatches = (header: string | undefined, adminKey: string): boolean => {
  const m = /^Bearer (\S+)$/.exec(header ?? '');
  return m !== null && timingSafeEqual(digest(m[1]!), digest(adminKey));
};
