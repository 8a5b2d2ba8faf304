import { createHmac } from 'node:crypto';
import type { EnvelopeMacs } from '../../domain/ports/envelope-macs.ts';
import { deriveKey } from './crypto.ts';

/**
 * Envelope MAC keys (SPEC §6): one per tenant, derived by HKDF from the cluster secrets key
 * (CUSTODIAN_SECRETS_KEY), or in dev mode, a single server without one, from the master key.
 */
export const envelopeMacs = (secret: Buffer): EnvelopeMacs => {
  const keys = new Map<string, Buffer>();
  return (tenant: string) => {
    let key = keys.get(tenant);
    if (!key) keys.set(tenant, (key = deriveKey(secret, `tenant:${tenant}:envelope`)));
    const k = key;
    return (input: string) => createHmac('sha256', k).update(input).digest('hex');
  };
};
