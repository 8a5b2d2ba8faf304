import { createHmac } from 'node:crypto';
import { deriveKey } from '../keys/crypto.ts';
import type { EventMacKeys } from './authenticated.ts';

/**
 * Event MAC keys: one per tenant, derived by HKDF from the cluster secrets key (or, in dev
 * mode, the master key) — the same root as the envelope MACs, under another label, so the
 * database holds nothing that makes a MAC.
 */
export const eventMacKeys = (secret: Buffer): EventMacKeys => {
  const keys = new Map<string, Buffer>();
  return (tenant) => {
    let key = keys.get(tenant);
    if (!key) keys.set(tenant, (key = deriveKey(secret, `tenant:${tenant}:events`)));
    const k = key;
    return (input) => createHmac('sha256', k).update(input).digest('hex');
  };
};
