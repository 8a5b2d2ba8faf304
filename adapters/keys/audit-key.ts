import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { ED25519, noteKey, rawEd25519, signatureLine, validKeyName } from '../../domain/audit/note.ts';
import type { CheckpointSigner } from '../../domain/ports/checkpoint-signer.ts';
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

export class InvalidAuditConfig extends Error {}

/**
 * The deployment's log name, the first part of every tenant's origin. CUSTODIAN_LOG_ORIGIN
 * (a schema-less URL such as `audit.example.com/custodian`: no scheme, spaces, plus signs or
 * control characters) when set; otherwise one derived from the audit public key,
 * `custodian.invalid/<16 hex digits>`, so that two deployments — each with its own key —
 * never name their logs alike, and instances sharing a key share their logs' names.
 */
export const logNameOf = (configured: string | undefined, privateKey: KeyObject): string => {
  if (configured === undefined || configured.trim() === '') {
    const digest = createHash('sha256')
      .update(rawEd25519(createPublicKey(privateKey)))
      .digest('hex');
    return `custodian.invalid/${digest.slice(0, 16)}`;
  }
  const name = configured.trim().replace(/\/+$/, '');
  if (name.includes('://') || !validKeyName(name) || !/^[A-Za-z0-9]/.test(name))
    throw new InvalidAuditConfig(
      `CUSTODIAN_LOG_ORIGIN must be a schema-less URL such as audit.example.com/custodian (no scheme, spaces or plus signs), not ${JSON.stringify(configured)}`,
    );
  return name;
};

/** The checkpoint-signer port: the audit key signing notes under the deployment's log name. */
export const checkpointSigner = (privateKey: KeyObject, logName: string): CheckpointSigner => {
  const key = noteKey(logName, ED25519, rawEd25519(createPublicKey(privateKey)));
  const signature = (text: string) => sign(null, Buffer.from(text), privateKey);
  return { logName, key, signature, signatureLine: (text) => signatureLine(key.name, key.id, signature(text)) };
};

/**
 * Receipts are signed over this prefix and then the canonical JSON, so a receipt signature
 * can never pass for a checkpoint's (a note text ends in a newline; canonical JSON has none)
 * nor a checkpoint's for a receipt's (its text does not start with the prefix).
 */
export const RECEIPT_PREFIX = 'custodian-receipt/v1\n';

/** The fields a receipt's signature leaves out: the signature itself and the proof that it was logged (which proves itself). */
const signedPart = (receipt: Record<string, unknown>) => {
  const { signature: _signature, log: _log, ...body } = receipt;
  return body;
};

export const receiptSigningInput = (body: Record<string, unknown>) => Buffer.from(RECEIPT_PREFIX + canonicalJson(signedPart(body)));

/**
 * A receipt (SPEC §6): the object with a `signature` field, Ed25519 over RECEIPT_PREFIX and the
 * RFC 8785 canonical JSON of the object without `signature` and `log`.
 */
export const signReceipt = <T extends Record<string, unknown>>(privateKey: KeyObject, body: T): T & { signature: string } => ({
  ...body,
  signature: sign(null, receiptSigningInput(body), privateKey).toString('base64'),
});

/** The receipt-signer port over an Ed25519 private key. */
export const receiptSigner = (privateKey: KeyObject): ReceiptSigner => ({ sign: (body) => signReceipt(privateKey, body) });

export type ReceiptCheck = { ok: true; legacy?: true } | { ok: false; reason: string };

/**
 * Checks a receipt's signature. One signed before receipts carried their prefix (over the bare
 * canonical JSON) still verifies, marked `legacy`: canonical JSON starts with `{`, which no
 * checkpoint text does (a log name starts with a letter or digit), so it was never a checkpoint's.
 */
export const verifyReceipt = (publicKey: KeyObject | string, receipt: unknown): ReceiptCheck => {
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt)) return { ok: false, reason: 'a receipt is a JSON object' };
  const r = receipt as Record<string, unknown>;
  if (typeof r.signature !== 'string') return { ok: false, reason: 'the receipt has no signature' };
  try {
    const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
    const signature = Buffer.from(r.signature, 'base64');
    if (verify(null, receiptSigningInput(r), key, signature)) return { ok: true };
    if (r.log === undefined && verify(null, Buffer.from(canonicalJson(signedPart(r))), key, signature)) return { ok: true, legacy: true };
    return { ok: false, reason: 'the signature does not match' };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
};
