import { readFileSync } from 'node:fs';
import { keyArgument, readPublicKeyPem } from './key-argument.ts';

/**
 * The inputs of an offline check: a JSON document and the audit public key (PEM, its text or a
 * file). On unreadable input they say why and set exit code 2, the verify commands' "bad input".
 */
const bad = (message: string): null => {
  process.stderr.write(`custodian: ${message}\n`);
  process.exitCode = 2;
  return null;
};

export const readDocument = (file: string): { document: unknown } | null => {
  try {
    return { document: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (error) {
    return bad((error as Error).message);
  }
};

/** `--public-key`: the PEM text, or a file holding it. */
export const readPublicKey = (value: string): string | null => {
  const k = keyArgument('--public-key', value, 'a PEM public key', readPublicKeyPem);
  return 'key' in k ? k.key : bad(k.problem);
};

/** The document and the public key, or null (said, exit 2) when either cannot be read. */
export const readVerifyInputs = (file: string, publicKey: string): { document: unknown; pem: string } | null => {
  const pem = readPublicKey(publicKey);
  if (pem === null) return null;
  const doc = readDocument(file);
  return doc && { document: doc.document, pem };
};
