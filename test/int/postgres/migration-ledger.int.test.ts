import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { newAuditKey } from '../../../adapters/keys/audit-key.ts';
import { startService } from '../../../adapters/service.ts';
import { ADMIN_KEY } from '../../support/service.ts';
import { checksumOf, migrate, type Migration } from '../../../adapters/postgres/migrate.ts';
import { applySchema, schemaSteps } from '../../../adapters/postgres/schema.ts';
import { databasePools } from '../../support/databases.ts';

const dbs = databasePools();
const aPool = () => dbs.fresh({ schema: false });
afterAll(() => dbs.close());

const tableExists = async (pool: pg.Pool, name: string) => (await pool.query('SELECT to_regclass($1) AS t', [name])).rows[0].t !== null;
const ledger = async (pool: pg.Pool) =>
  (await pool.query<{ id: string; checksum: string | null }>('SELECT id, checksum FROM custodian_migrations ORDER BY id')).rows;

/** What a service start migrates: the whole schema, from one pool. */
const startOn = (pool: pg.Pool) => applySchema(pool);

describe('the migration ledger', () => {
  it('given an applied migration whose text was edited, when the service starts, then it is refused naming the migration and nothing is applied', async () => {
    const { pool } = await aPool();
    const first: Migration = { id: 'widgets-001', sql: 'CREATE TABLE widgets (id int PRIMARY KEY)' };
    await migrate(pool, [first]);
    const recorded = await ledger(pool);
    const edited: Migration = { id: 'widgets-001', sql: 'CREATE TABLE widgets (id int PRIMARY KEY, name text)' };
    const next: Migration = { id: 'widgets-002', sql: 'CREATE TABLE gadgets (id int PRIMARY KEY)' };
    const refusal = await migrate(pool, [edited, next]).then(
      () => null,
      (e: Error) => e,
    );
    expect(refusal?.message).toMatch(/^migration widgets-001 was applied with another text than this build's: .*new migration$/);
    expect(refusal?.message).not.toContain('\n');
    expect(await tableExists(pool, 'gadgets')).toBe(false);
    expect(await ledger(pool)).toEqual(recorded);
    // The text as it was (indentation aside) goes on, and applies the new one.
    await migrate(pool, [{ id: 'widgets-001', sql: '\n    CREATE TABLE widgets (id int PRIMARY KEY)\n' }, next]);
    expect(await tableExists(pool, 'gadgets')).toBe(true);
    expect((await ledger(pool)).map((r) => r.id)).toEqual(['widgets-001', 'widgets-002']);
  });

  it('given two instances starting at once on an empty database, then both start and the ledger holds each migration once, with its checksum', async () => {
    const { db } = await aPool();
    const a = dbs.pool(db.url);
    const b = dbs.pool(db.url);
    await Promise.all([startOn(a), startOn(b)]);
    const rows = await ledger(a);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(rows.map((r) => r.id).sort()).toEqual(
      schemaSteps()
        .map((m) => m.id)
        .sort(),
    );
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.checksum ?? ''))).toBe(true);
    // A third start finds nothing to do.
    await startOn(a);
    expect(await ledger(a)).toEqual(rows);
  });

  it('given a read model migration whose applied text is not the text of this build, then the service refuses to start, naming it', async () => {
    const { db, pool } = await aPool();
    await startOn(pool);
    // What an edit of the jobs model's first migration in the source would look like to the ledger.
    await pool.query(`UPDATE custodian_migrations SET checksum = $1 WHERE id = 'read-model-jobs-001'`, [checksumOf('CREATE TABLE rm_jobs (id text)')]);
    await expect(startService({ databaseUrl: db.url, adminKey: ADMIN_KEY, masterKey: randomBytes(32), auditKey: newAuditKey(), port: 0 })).rejects.toThrow(
      /^migration read-model-jobs-001 was applied with another text than this build's/,
    );
  });

  it('given a checksum, then indentation, blank lines and whole-line comments do not count and a changed word does', () => {
    expect(checksumOf('CREATE TABLE t (\n  a int\n);')).toBe(checksumOf('\n      -- why t\n      CREATE TABLE t (\n        a int\n      );\n\n'));
    expect(checksumOf('CREATE TABLE t (a int)')).not.toBe(checksumOf('CREATE TABLE t (a bigint)'));
  });
});
