import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eventMacKeys } from '../../../adapters/eventstore/event-macs.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { authenticateLegacyEvents } from '../../../adapters/eventstore/postgres-legacy-macs.ts';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { checksumOf, migrate } from '../../../adapters/postgres/migrate.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import { eventStoreMigrations, keystoreMigrations } from '../../../adapters/postgres/schema.ts';
import type { Sealer } from '../../../domain/ports/sealer.ts';
import { allProjections } from '../../../projections/all.ts';
import { checkpointMigrations, ensureProjectionSchemas } from '../../../projections/runner.ts';
import { databasePools } from '../../support/databases.ts';

/** The log, the keystore and the read models as the build before the checksums left them. */
const OLD_LOG = readFileSync(new URL('./fixtures/log-before-checksums.sql', import.meta.url), 'utf8');

const dbs = databasePools();
const aPool = () => dbs.fresh();
afterAll(() => dbs.close());

/** The read models' DDL is all this file reads of the projections: nothing here seals or opens. */
const unused = () => {
  throw new Error("only the projections' migrations are read here");
};
const noSealing: Sealer = { seal: unused, open: unused, dedupeDigest: unused };

const oldDatabase = async () => {
  const { db, pool } = await aPool();
  await pool.query(OLD_LOG);
  await pool.query(keystoreMigrations[0]!.sql);
  await pool.query(`INSERT INTO custodian_migrations (id) VALUES ('keystore-001'), ('event-macs-001')`);
  // The read models and checkpoints were made by idempotent DDL on every start, unrecorded.
  await pool.query(checkpointMigrations[0]!.sql);
  for (const p of allProjections({ sealer: noSealing })) for (const m of p.migrations) await pool.query(m.sql);
  return { db, pool };
};

const startOn = async (pool: pg.Pool) => {
  const store = await postgresEventStore(pool);
  const keystore = await postgresKeystore(pool, randomBytes(32));
  await ensureProjectionSchemas(postgresReadModelStore(pool), allProjections({ sealer: keystore }));
  await store.close();
  return authenticateLegacyEvents(pool, eventMacKeys(randomBytes(32)));
};

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const APPEND_MANY = `SELECT * FROM custodian_append_many($1::text[], $2::text[], $3::int[], $4::uuid[], ARRAY(SELECT 'Tested' FROM generate_series(1, cardinality($4::uuid[]))),
  ARRAY(SELECT 1 FROM generate_series(1, cardinality($4::uuid[]))), ARRAY(SELECT '{}'::jsonb FROM generate_series(1, cardinality($4::uuid[]))),
  ARRAY(SELECT '{}'::jsonb FROM generate_series(1, cardinality($4::uuid[]))))`;

const APPEND_ONE = `SELECT * FROM custodian_append($1, $2, $3::uuid[], ARRAY(SELECT 'Tested' FROM generate_series(1, cardinality($3::uuid[]))),
  ARRAY(SELECT 1 FROM generate_series(1, cardinality($3::uuid[]))), ARRAY(SELECT '{}'::jsonb FROM generate_series(1, cardinality($3::uuid[]))),
  ARRAY(SELECT '{}'::jsonb FROM generate_series(1, cardinality($3::uuid[]))))`;

/** Batches and single appends that go through, fail in part, fail whole, and are refused: every answer, row, notice and error. */
const appendScript = async (url: string) => {
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  const notices: string[] = [];
  let ended!: () => void;
  const end = new Promise<void>((r) => (ended = r));
  listener.on('notification', (n) => (n.payload === 'end' ? ended() : notices.push(n.payload ?? '')));
  await listener.query('LISTEN custodian_events');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let next = 1;
  const ids = (n: number) => Array.from({ length: n }, () => uuid(next++));
  const batches: [string[], string[], number[]][] = [
    [
      ['s1', 's2', 's1', 's3', 's1'],
      ['no_stream', 'any', '1', 'stream_exists', '7'],
      [2, 1, 1, 1, 1],
    ],
    [['s2'], ['no_stream'], [1]],
    [
      ['s1', 's2'],
      ['2', '0'],
      [1, 2],
    ],
    [[], [], [1]],
    [[], [], []],
  ];
  const answers: unknown[] = [];
  for (const [streams, expected, counts] of batches) {
    const events = ids(counts.reduce((a, b) => a + b, 0));
    answers.push(
      await client.query(APPEND_MANY, [streams, expected, counts, events]).then(
        (r) => r.rows,
        (e: pg.DatabaseError) => ({ code: e.code, message: e.message }),
      ),
    );
  }
  const singles: [string, string, number][] = [
    ['a', 'no_stream', 2],
    ['a', 'no_stream', 1],
    ['a', 'any', 1],
    ['b', 'stream_exists', 1],
    ['a', '2', 1],
    ['a', '9', 1],
    ['c', 'any', 0],
  ];
  for (const [stream, expected, n] of singles)
    answers.push(
      await client.query(APPEND_ONE, [stream, expected, ids(n)]).then(
        (r) => r.rows,
        (e: pg.DatabaseError) => ({ code: e.code, message: e.message }),
      ),
    );
  await client.query(`SELECT pg_notify('custodian_events', 'end')`);
  await end;
  const events = (await client.query('SELECT position, stream, revision, event_id FROM custodian_events ORDER BY position')).rows;
  const streams = (await client.query('SELECT stream, revision FROM custodian_streams ORDER BY stream')).rows;
  await client.end();
  await listener.end();
  return { answers, events, streams, notices };
};

describe('a database whose ledger is of the form before checksums', () => {
  it('given custodian_append and custodian_append_many of that build and of this one, then their answers, positions, revisions, notices and errors are the same', async () => {
    const old = await oldDatabase();
    const fresh = await aPool();
    await postgresEventStore(fresh.pool).then((s) => s.close());
    const before = await appendScript(old.db.url);
    const now = await appendScript(fresh.db.url);
    expect(now).toEqual(before);
    expect((before.answers[0] as unknown[]).length).toBe(5);
    expect(before.answers[3]).toMatchObject({ code: '22004' });
    expect(before.answers.at(-1)).toMatchObject({ code: '22004' });
    expect(before.answers.slice(5).filter((a) => Array.isArray(a) && a[0].ok).length).toBe(3);
  });

  it('upgrades in place: every applied migration gets its checksum, the new ones apply once, the backfill is not run again, and an edit is refused afterwards', async () => {
    const { pool } = await oldDatabase();
    await pool.query(APPEND_MANY, [['s1'], ['no_stream'], [2], [uuid(1), uuid(2)]]);
    expect(await startOn(pool)).toBe(0);
    const rows = (await pool.query<{ id: string; checksum: string | null }>('SELECT id, checksum FROM custodian_migrations')).rows;
    const byId = new Map(rows.map((r) => [r.id, r.checksum]));
    for (const m of [...eventStoreMigrations, ...keystoreMigrations, ...checkpointMigrations]) expect(byId.get(m.id)).toBe(checksumOf(m.sql));
    expect(rows.every((r) => r.checksum !== null)).toBe(true);
    // custodian_append_many's one body now: the call of custodian_append_from.
    const body = (await pool.query(`SELECT prosrc FROM pg_proc WHERE proname = 'custodian_append_many'`)).rows[0].prosrc as string;
    expect(body).toContain('custodian_append_from(first');
    const single = (await pool.query(`SELECT prosrc FROM pg_proc WHERE proname = 'custodian_append'`)).rows[0].prosrc as string;
    expect(single).toContain('custodian_append_from(custodian_allocate_positions(n)');
    const after = (await pool.query(APPEND_MANY, [['s1'], ['1'], [1], [uuid(3)]])).rows;
    expect(after).toEqual([{ idx: 1, ok: true, first_position: 3, last_revision: 2, actual: 2 }]);
    // A second start changes nothing; an edited migration is now refused.
    expect(await startOn(pool)).toBe(0);
    expect((await pool.query('SELECT id, checksum FROM custodian_migrations')).rows).toEqual(expect.arrayContaining(rows));
    await expect(migrate(pool, [{ id: 'eventstore-002', sql: 'SELECT 1' }])).rejects.toThrow('migration eventstore-002 was applied with another text');
  });
});
