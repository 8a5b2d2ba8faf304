import { createHash } from 'node:crypto';
import { fastCanonicalize } from './canonical-json.ts';

/** RFC 8785 canonical JSON: the one byte form we hash and sign. */
export const canonicalJson = (value: unknown): string => {
  const text = fastCanonicalize(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
};

export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** A ticket is stored, looked up and compared only as this hash. */
export const ticketHash = (ticket: string): string => sha256Hex(ticket);
