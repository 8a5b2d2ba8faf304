import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { ReceiptSigner } from '../../domain/ports/receipt-signer.ts';
import { canonicalJson } from '../../domain/shared/hash.ts';
import { loadOrCreateSecret } from './secrets.ts';

/** CUSTODIAN_AUDIT_KEY (Ed25519 private key, PEM), or the one kept in <dataDir>/secrets/audit-key.pem. */
export const loadAuditKey = (dataDir: string): KeyObject =>
  createPrivateKey(
    process.env.CUSTODIAN_AUDIT_KEY ??
      loadOrCreateSecret(dataDir, 'audit-key.pem', () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()).value,
  );

export const newAuditKey = (): KeyObject => generateKeyPairSync('ed25519').privateKey;

export const publicPem = (privateKey: KeyObject) => createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();

/**
 * A receipt (SPEC §6): the object with a `signature` field, Ed25519 over the RFC 8785
 * canonical JSON of the object without it.
 */
export const signReceipt = <T extends Record<string, unknown>>(privateKey: KeyObject, body: T): T & { signature: string } => ({
  ...body,
  signature: sign(null, Buffer.from(canonicalJson(body)), privateKey).toString('base64'),
});

/** The receipt-signer port over an Ed25519 private key. */
export const receiptSigner = (privateKey: KeyObject): ReceiptSigner => ({ sign: (body) => signReceipt(privateKey, body) });

export const verifyReceipt = (publicKey: KeyObject | string, receipt: unknown): { ok: true } | { ok: false; reason: string } => {
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt)) return { ok: false, reason: 'a receipt is a JSON object' };
  const { signature, ...body } = receipt as Record<string, unknown>;
  if (typeof signature !== 'string') return { ok: false, reason: 'the receipt has no signature' };
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  try {
    return verify(null, Buffer.from(canonicalJson(body)), key, Buffer.from(signature, 'base64'))
      ? { ok: true }
      : { ok: false, reason: 'the signature does not match' };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
};
