import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withKeyWork } from '../../../domain/ports/append-rows.ts';
import { postgresKeystore, type Keystore } from '../../../adapters/keys/keystore.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let keystore: Keystore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 4);
  // A cache of two keys: any three others evict a key from it.
  keystore = await postgresKeystore(pool, randomBytes(32), 2);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const at = (key: string) => ({ tenant: 'acme', plugin: 'notes', scope: 'project:p', key, version: 1, data_subject: null });

describe('a put’s new key, before its append commits', () => {
  it('given a burst of other keys while the put is in progress, then its body still opens; once the put ended uncommitted, the key is gone', async () => {
    let sealed: Awaited<ReturnType<Keystore['seal']>> | null = null;
    await withKeyWork(false, async (work) => {
      sealed = await keystore.seal(at('mine'), 'body', '{"v":1}', work);
      // Other records' keys, made and committed outside this put, push it out of the LRU.
      for (const k of ['x', 'y', 'z']) await keystore.seal(at(k), 'body', '{}');
      expect(await keystore.open(at('mine'), 'body', sealed)).toBe('{"v":1}');
    });
    // The put never appended: its key row was never written, and nothing holds the key now.
    expect(await keystore.open(at('mine'), 'body', sealed!)).toBeNull();
    const { rows } = await pool.query("SELECT 1 FROM custodian_data_keys WHERE record_key = 'mine'");
    expect(rows).toHaveLength(0);
  });
});
