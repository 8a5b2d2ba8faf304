import { randomBytes } from 'node:crypto';
import { loadOrCreateSecret, parseMasterKey } from './secrets.ts';

/** CUSTODIAN_MASTER_KEY, or the one kept in <dataDir>/secrets/master-key, made on first use. */
export const loadMasterKey = (dataDir: string): Buffer =>
  parseMasterKey(process.env.CUSTODIAN_MASTER_KEY ?? loadOrCreateSecret(dataDir, 'master-key', () => randomBytes(32).toString('base64')).value);
