import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import { freshBytes } from './fresh-bytes.ts';

const TAG_BYTES = 16;

/** A 32-byte key derived from the master key for one purpose (HKDF-SHA-256). */
export const deriveKey = (master: Buffer, info: string): Buffer => Buffer.from(hkdfSync('sha256', master, 'custodian/v1', info, 32));

export const aesGcmSeal = (key: Buffer, plaintext: Buffer, aad: string): { nonce: Buffer; ciphertext: Buffer } => {
  const nonce = freshBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { nonce, ciphertext };
};

/** Throws when the key, the AAD or a byte of the ciphertext is wrong. */
export const aesGcmOpen = (key: Buffer, nonce: Buffer, sealed: Buffer, aad: string): Buffer => {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
};

/** Wrapped keys are stored as nonce ‖ ciphertext ‖ tag. */
export const wrapKey = (kek: Buffer, key: Buffer, aad: string): Buffer => {
  const { nonce, ciphertext } = aesGcmSeal(kek, key, aad);
  return Buffer.concat([nonce, ciphertext]);
};

export const unwrapKey = (kek: Buffer, wrapped: Buffer, aad: string): Buffer => aesGcmOpen(kek, wrapped.subarray(0, 12), wrapped.subarray(12), aad);

export const hmacHex = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('hex');
