import { canonicalJson, sha256Hex } from '../shared/hash.ts';

/**
 * SPEC §3: a job's purpose is the SHA-256 (hex) of its start input, or a named origin, or
 * "" for none. A string input is hashed as its UTF-8 text; any other JSON value as its
 * canonical JSON, so the same input always yields the same purpose.
 */
export const purposeOfInput = (input: unknown): string => sha256Hex(typeof input === 'string' ? input : canonicalJson(input));
