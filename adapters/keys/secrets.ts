import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const secretsDir = (dataDir: string) => path.join(dataDir, 'secrets');

/**
 * A secret kept in the data directory, readable by this user only (0600 in a 0700 folder).
 * `created` says whether this call made it, so the caller can print it once.
 */
export const loadOrCreateSecret = (dataDir: string, name: string, generate: () => string): { value: string; created: boolean } => {
  const dir = secretsDir(dataDir);
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = path.join(dir, name);
  if (existsSync(file)) return { value: readFileSync(file, 'utf8').trim(), created: false };
  const value = generate();
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return { value, created: true };
};

export const randomKey =
  (bytes = 32) =>
  () =>
    randomBytes(bytes).toString('base64url');

/** CUSTODIAN_MASTER_KEY must be 32 bytes in base64; anything else is a configuration error. */
export const parseMasterKey = (text: string): Buffer => {
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('CUSTODIAN_MASTER_KEY must be 32 bytes, base64-encoded');
  return key;
};
