import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eventMacKeys } from '../../../adapters/eventstore/event-macs.ts';
import { authenticateLegacyEvents } from '../../../adapters/eventstore/postgres-legacy-macs.ts';
import { checksumOf, migrate } from '../../../adapters/postgres/migrate.ts';
import { applySchema, schemaMigrations } from '../../../adapters/postgres/schema.ts';
import { databasePools } from '../../support/databases.ts';

/** The log, the keystore and the read models as the build before the checksums left them. */
const OLD_LOG = readFileSync(new URL('./fixtures/log-before-checksums.sql', import.meta.url), 'utf8');

/** The migration files that existed when that release was current (0001–0023): the later ones are new to it. */
const KNOWN_TO_THAT_RELEASE = 23;

const dbs = databasePools();
const aPool = () => dbs.fresh({ schema: false });
afterAll(() => dbs.close());

const textOf = (id: string) => schemaMigrations().find((m) => m.id === id)!.sql;

const oldDatabase = async () => {
  const { db, pool } = await aPool();
  await pool.query(OLD_LOG);
  await pool.query(textOf('keystore-001'));
  await pool.query(`INSERT INTO custodian_migrations (id) VALUES ('keystore-001'), ('event-macs-001')`);
  // The read models and checkpoints were made by idempotent DDL on every start, unrecorded.
  for (const m of schemaMigrations().slice(0, KNOWN_TO_THAT_RELEASE)) if (/^(checkpoints|read-model)-/.test(m.id)) await pool.query(m.sql);
  return { db, pool };
};

/** What a start of this build does to it: the schema, then the one-time MAC of unMACed events. */
const startOn = async (pool: pg.Pool) => {
  await applySchema(pool);
  return authenticateLegacyEvents(pool, eventMacKeys(randomBytes(32)));
};

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const APPEND_MANY = `SELECT * FROM custodian_append_many($1::text[], $2::text[], $3::int[], $4::uuid[], ARRAY(SELECT 'Tested' FROM generate_series(1, cardinality($4::uuid[]))),
  ARRAY(SELECT 1 FROM generate_series(1, cardinality($4::uuid[]))), ARRAY(SELECT '{}'::jsonb FROM generate_series(1, cardinality($4::uuid[]))),
  ARRAY(SELECT '{}'::jsonb FROM generate_series(1, cardinality($4::uuid[]))))`;

describe('a database whose ledger is of the form before checksums', () => {
  it('upgrades in place: every applied migration gets its checksum, the new ones apply once, the backfill is not run again, and an edit is refused afterwards', async () => {
    const { pool } = await oldDatabase();
    await pool.query(APPEND_MANY, [['s1'], ['no_stream'], [2], [uuid(1), uuid(2)]]);
    expect(await startOn(pool)).toBe(0);
    const rows = (await pool.query<{ id: string; checksum: string | null }>('SELECT id, checksum FROM custodian_migrations')).rows;
    const byId = new Map(rows.map((r) => [r.id, r.checksum]));
    for (const m of schemaMigrations()) expect(byId.get(m.id)).toBe(checksumOf(m.sql));
    expect(rows.every((r) => r.checksum !== null)).toBe(true);
    // The appends of that build are gone (the one commit path replaced them); its events stay.
    expect((await pool.query(`SELECT proname FROM pg_proc WHERE proname LIKE 'custodian_append%'`)).rows).toEqual([]);
    expect((await pool.query(`SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'custodian_commit'`)).rows[0].n).toBe(1);
    expect((await pool.query('SELECT position, stream, revision FROM custodian_events ORDER BY position')).rows).toEqual([
      { position: 1, stream: 's1', revision: 0 },
      { position: 2, stream: 's1', revision: 1 },
    ]);
    // A second start changes nothing; an edited migration is now refused.
    expect(await startOn(pool)).toBe(0);
    expect((await pool.query('SELECT id, checksum FROM custodian_migrations')).rows).toEqual(expect.arrayContaining(rows));
    await expect(migrate(pool, [{ id: 'eventstore-002', sql: 'SELECT 1' }])).rejects.toThrow('migration eventstore-002 was applied with another text');
  });
});
