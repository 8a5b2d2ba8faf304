import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresKeystore, type Keystore } from '../../../adapters/keys/keystore.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let keystore: Keystore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 4);
  keystore = await postgresKeystore(pool, randomBytes(32));
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const at = (tenant: string, key: string, data_subject: string | null = null) => ({
  tenant,
  plugin: 'notes',
  scope: 'project:p',
  key,
  version: 1,
  data_subject,
});

describe('shredTenant', () => {
  it("deletes every key of the tenant — its own records' and its data subjects' — so none of its bodies opens, even from this instance's cache; another tenant's keys stay", async () => {
    const mine = [await keystore.seal(at('acme', 'a'), 'body', '"a"'), await keystore.seal(at('acme', 'b', 'user:ada'), 'body', '"b"')];
    const theirs = await keystore.seal(at('other', 'a', 'user:ada'), 'body', '"theirs"');
    expect(await keystore.open(at('acme', 'a'), 'body', mine[0]!)).toBe('"a"');

    // Two data keys and one subject key.
    expect(await keystore.shredTenant('acme')).toBe(3);
    expect(await keystore.open(at('acme', 'a'), 'body', mine[0]!)).toBeNull();
    expect(await keystore.open(at('acme', 'b', 'user:ada'), 'body', mine[1]!)).toBeNull();
    const left = await pool.query<{ n: number }>(
      "SELECT (SELECT count(*) FROM custodian_data_keys WHERE tenant = 'acme') + (SELECT count(*) FROM custodian_subject_keys WHERE tenant = 'acme') AS n",
    );
    expect(Number(left.rows[0]!.n)).toBe(0);
    expect(await keystore.open(at('other', 'a', 'user:ada'), 'body', theirs)).toBe('"theirs"');

    // Nothing left: a second shred deletes nothing.
    expect(await keystore.shredTenant('acme')).toBe(0);
  });
});
