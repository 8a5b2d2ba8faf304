import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyWork } from '../../../domain/ports/append-rows.ts';
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
    const work = keyWork(false);
    const { sealed, rows: made } = await keystore.sealInWork(at('mine'), 'body', '{"v":1}', work);
    // The seal answers the row its append must write: the new key, nowhere else yet.
    expect(made.map((r) => r.kind)).toEqual(['data_key_made']);
    // Other records' keys, made and committed outside this put, push it out of the LRU.
    for (const k of ['x', 'y', 'z']) await keystore.seal(at(k), 'body', '{}');
    expect(await keystore.open(at('mine'), 'body', sealed)).toBe('{"v":1}');
    // A second seal in the same work answers the same key and the same rows.
    const again = await keystore.sealInWork(at('mine'), 'dedupe', 'd', work);
    expect({ key: again.sealed.k, rows: again.rows }).toEqual({ key: sealed.k, rows: made });
    keystore.endWork(work, 'ended');
    // The put never appended: its key row was never written, and nothing holds the key now.
    expect(await keystore.open(at('mine'), 'body', sealed)).toBeNull();
    const { rows } = await pool.query("SELECT 1 FROM custodian_data_keys WHERE record_key = 'mine'");
    expect(rows).toHaveLength(0);
  });
});
