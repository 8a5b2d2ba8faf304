import { readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { eventMacKeys } from '../../../adapters/eventstore/event-macs.ts';
import { authenticateLegacyEvents } from '../../../adapters/eventstore/postgres-legacy-macs.ts';
import { applySchema, schemaMigrations } from '../../../adapters/postgres/schema.ts';
import { databasePools } from '../../support/databases.ts';
import { describeSchema } from '../../support/schema-description.ts';

/**
 * The schema of this release, kept as a snapshot (as Emmett keeps one per release): a change of
 * schema is a new migration and a new snapshot, read in review; `CUSTODIAN_WRITE_SCHEMA_SNAPSHOT=1`
 * rewrites the file from a fresh database.
 */
const SNAPSHOT = new URL('./fixtures/schema-0.2.0.txt', import.meta.url);
/** The log, keystore and read models as the build before the migration ledger kept checksums left them. */
const OLD_LOG = readFileSync(new URL('./fixtures/log-before-checksums.sql', import.meta.url), 'utf8');

/** The migration files that existed when that release was current (0001–0023): the later ones are new to it. */
const KNOWN_TO_THAT_RELEASE = 23;

const dbs = databasePools();
afterAll(() => dbs.close());

describe('the schema of this release', () => {
  it('given a fresh database, when the schema is applied, then it is exactly the snapshot of this release', async () => {
    const { pool } = await dbs.fresh({ schema: false });
    await applySchema(pool);
    const schema = await describeSchema(pool);
    if (process.env.CUSTODIAN_WRITE_SCHEMA_SNAPSHOT === '1') writeFileSync(SNAPSHOT, schema);
    expect(schema).toBe(readFileSync(SNAPSHOT, 'utf8'));
  });

  it('given a database written by an earlier release, when this release starts on it, then its schema is exactly the fresh one', async () => {
    const { pool } = await dbs.fresh({ schema: false });
    await pool.query(OLD_LOG);
    const byId = new Map(schemaMigrations().map((m) => [m.id, m.sql]));
    await pool.query(byId.get('keystore-001')!);
    await pool.query(`INSERT INTO custodian_migrations (id) VALUES ('keystore-001'), ('event-macs-001')`);
    // That release made the read models and checkpoints with idempotent DDL on every start, unrecorded.
    for (const m of schemaMigrations().slice(0, KNOWN_TO_THAT_RELEASE)) if (/^(checkpoints|read-model)-/.test(m.id)) await pool.query(m.sql);
    await applySchema(pool);
    await authenticateLegacyEvents(pool, eventMacKeys(randomBytes(32)));
    expect(await describeSchema(pool)).toBe(readFileSync(SNAPSHOT, 'utf8'));
  });
});
