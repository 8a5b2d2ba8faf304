import { randomBytes, randomUUID } from 'node:crypto';
import type { KeyShredder } from '../../domain/ports/key-shredder.ts';
import type { SealContext, Sealer } from '../../domain/ports/sealer.ts';
import { aesGcmOpen, aesGcmSeal, hmacHex } from './crypto.ts';

/**
 * Data keys held in this process, one per record as the PostgreSQL keystore keeps them: for
 * the SDK's memory store and tests. Shredding a record's key makes its sealed values unreadable.
 */
export const memoryKeystore = (): Sealer & Pick<KeyShredder, 'shredRecord'> => {
  const keys = new Map<string, Buffer>();
  const byRecord = new Map<string, string>();
  const tenantKeys = new Map<string, Buffer>();
  const recordOf = (c: Pick<SealContext, 'tenant' | 'plugin' | 'scope' | 'key'>) => [c.tenant, c.plugin, c.scope, c.key].join('\n');
  const aad = (c: SealContext, field: string) => ['custodian', field, c.tenant, c.plugin, c.scope, c.key, String(c.version)].join('\n');
  return {
    async seal(c, field, plaintext) {
      let id = byRecord.get(recordOf(c));
      if (!id) {
        id = randomUUID();
        byRecord.set(recordOf(c), id);
        keys.set(id, randomBytes(32));
      }
      const { nonce, ciphertext } = aesGcmSeal(keys.get(id)!, Buffer.from(plaintext, 'utf8'), aad(c, field));
      return { k: id, n: nonce.toString('base64'), c: ciphertext.toString('base64') };
    },
    async open(c, field, sealed) {
      const key = keys.get(sealed.k);
      if (!key) return null;
      return aesGcmOpen(key, Buffer.from(sealed.n, 'base64'), Buffer.from(sealed.c, 'base64'), aad(c, field)).toString('utf8');
    },
    dedupeDigest(tenant, text) {
      let k = tenantKeys.get(tenant);
      if (!k) tenantKeys.set(tenant, (k = randomBytes(32)));
      return hmacHex(k, text);
    },
    async shredRecord(tenant, plugin, scope, key) {
      const id = byRecord.get(recordOf({ tenant, plugin, scope, key }));
      if (!id) return 0;
      byRecord.delete(recordOf({ tenant, plugin, scope, key }));
      keys.delete(id);
      return 1;
    },
  };
};
