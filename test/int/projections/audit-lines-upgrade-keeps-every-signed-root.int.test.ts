import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../adapters/clock/system.ts';
import { auditLinesStore } from '../../../adapters/eventstore/audit-lines.ts';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { envelopeMacs } from '../../../adapters/keys/envelope-keys.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import { applySchema, schemaMigrations } from '../../../adapters/postgres/schema.ts';
import { jobCommands } from '../../../commands/jobs.ts';
import { tenantCommands } from '../../../commands/tenants.ts';
import { rangeHash } from '../../../domain/audit/merkle.ts';
import type { RecordedEvent } from '../../../domain/ports/event-store.ts';
import { createAuditProjection } from '../../../projections/audit.ts';
import { legacyCatchUp } from '../../../projections/audit-upgrade.ts';
import { runBatch } from '../../../projections/runner.ts';
import { freshDatabase } from '../../support/database.ts';

/*
 * A database written by the release before stored lines: its log made by the migrations of
 * that release (up to eventstore-006), its audit log derived by that release's projection (kept,
 * frozen, as `legacyCatchUp`) up to some position, with more events committed after it and not
 * yet projected. The upgrade must keep every root already signed and give the events not yet
 * logged exactly the lines that release would have given them.
 */

const ok = <T>(r: E.Either<unknown, T>): T => {
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left));
  return r.right;
};

/** Real activity on two tenants, made by the commands: job starts, calls, ends. */
const activity = async (): Promise<readonly RecordedEvent[]> => {
  const store = memoryEventStore();
  const tenants = tenantCommands(store, systemClock);
  const runtime = jobCommands(store, systemClock, envelopeMacs(randomBytes(32)));
  for (const t of ['acme', 'beta']) {
    ok(await tenants.create(t, {}));
    ok(await tenants.installPlugin(t, { name: 'notes', functions: ['save'], agents: ['scribe'] }));
  }
  // The tenants' activity interleaved, so a log cut half way leaves both part logged.
  for (let j = 0; j < 9; j++)
    for (const t of ['acme', 'beta']) {
      ok(await runtime.start(t, `job-${j}`, { agent: 'scribe', plugin: 'notes', subject: `s${j}`, input: { j } }));
      ok(await runtime.mintCall(t, `job-${j}`, 'save', {}));
      ok(await runtime.end(t, `job-${j}`));
    }
  return store.readAll(0, { limit: 100_000 });
};

/** A database of the previous release holding `events`, its audit derived up to position `projected`. */
const previousRelease = async (url: string, events: readonly RecordedEvent[], projected: number) => {
  const pool = createPool(url, 4);
  // The migration files that release had: 0001–0023 (the log up to eventstore-006, the checkpoints, the derived audit model).
  await migrate(pool, schemaMigrations().slice(0, 23));
  await pool.query(
    `INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata, recorded_at)
     SELECT p, pg_current_xact_id(), s, r, id, t, v, d, m, to_timestamp(ms / 1000.0)
     FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::uuid[], $5::text[], $6::int[], $7::jsonb[], $8::jsonb[], $9::bigint[])
       AS e(p, s, r, id, t, v, d, m, ms)`,
    [
      events.map((e) => e.position),
      events.map((e) => e.stream),
      events.map((e) => e.revision),
      events.map((e) => e.event_id),
      events.map((e) => e.type),
      events.map((e) => e.schema_version),
      events.map((e) => JSON.stringify(e.data)),
      events.map((e) => JSON.stringify(e.metadata)),
      events.map((e) => e.recorded_at),
    ],
  );
  await pool.query(`SELECT setval('custodian_event_position', $1)`, [events.at(-1)!.position]);
  await pool.query(`INSERT INTO custodian_streams (stream, revision) SELECT stream, max(revision) FROM custodian_events GROUP BY stream`);
  await pool.query(`INSERT INTO custodian_checkpoints (name, position) VALUES ('audit', 0)`);
  const client = await pool.connect();
  try {
    await legacyCatchUp({ query: ((text: string, params?: unknown[]) => client.query(text, params)) as never }, projected);
  } finally {
    client.release();
  }
  return pool;
};

const rootOf = (pool: pg.Pool, tenant: string, size: number) =>
  rangeHash(
    {
      async node(level, idx) {
        const { rows } = await pool.query<{ hash: Buffer }>('SELECT hash FROM rm_audit_nodes WHERE tenant = $1 AND level = $2 AND idx = $3', [
          tenant,
          level,
          idx,
        ]);
        return rows[0]!.hash;
      },
    },
    0,
    size,
  );

const sizes = async (pool: pg.Pool) =>
  Object.fromEntries(
    (await pool.query<{ tenant: string; size: string }>('SELECT tenant, size FROM rm_audit_heads ORDER BY tenant')).rows.map((r) => [r.tenant, Number(r.size)]),
  );

let upgraded: Awaited<ReturnType<typeof freshDatabase>>;
let reference: Awaited<ReturnType<typeof freshDatabase>>;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  upgraded = await freshDatabase({ schema: false });
  reference = await freshDatabase({ schema: false });
});
afterAll(async () => {
  for (const p of pools) await p.end();
  await upgraded.drop();
  await reference.drop();
});

describe('the upgrade to stored audit lines', () => {
  it('given a log of the previous release projected part way, when upgraded, then every signed root stays, the events not yet logged get the lines that release gave them, and new lines follow on', async () => {
    const events = await activity();
    const half = events[Math.floor(events.length / 2)]!.position;

    // The previous release, all of it projected: the lines and roots it would have signed.
    const whole = await previousRelease(reference.url, events, Number.MAX_SAFE_INTEGER);
    pools.push(whole);
    const wanted = (await whole.query<{ tenant: string; seq: string; line: string }>('SELECT tenant, seq, line FROM rm_audit ORDER BY tenant, seq')).rows;
    const wantedSizes = await sizes(whole);
    expect(Object.keys(wantedSizes).sort()).toEqual(['acme', 'beta']);

    // The same log projected only to half way, its roots signed so far noted.
    const pool = await previousRelease(upgraded.url, events, half);
    pools.push(pool);
    const signedSizes = await sizes(pool);
    const signed = Object.fromEntries(await Promise.all(Object.entries(signedSizes).map(async ([t, n]) => [t, await rootOf(pool, t, n)] as const)));
    for (const t of ['acme', 'beta']) expect(signedSizes[t]).toBeGreaterThan(0);
    for (const t of ['acme', 'beta']) expect(signedSizes[t]).toBeLessThan(wantedSizes[t]!);

    // Upgrade: this build's schema, as the service starts.
    await applySchema(pool);
    const store = auditLinesStore(await postgresEventStore(pool));
    const models = postgresReadModelStore(pool);
    const audit = createAuditProjection();

    const lines = (await pool.query<{ tenant: string; seq: string; line: string }>('SELECT tenant, seq, line FROM custodian_audit_lines ORDER BY tenant, seq'))
      .rows;
    expect(lines).toEqual(wanted);
    expect(await sizes(pool)).toEqual(wantedSizes);
    for (const [t, n] of Object.entries(signedSizes)) expect(await rootOf(pool, t, n)).toEqual(signed[t]);
    for (const [t, n] of Object.entries(wantedSizes)) expect(await rootOf(pool, t, n)).toEqual(await rootOf(whole, t, n));
    const { rows: gone } = await pool.query(`SELECT to_regclass('rm_audit') AS a, to_regclass('rm_audit_jobs') AS j, to_regclass('rm_audit_kinds') AS k`);
    expect(gone[0]).toEqual({ a: null, j: null, k: null });

    // New activity after the upgrade: its lines follow each tenant's last one and join the tree.
    const runtime = jobCommands(store, systemClock, envelopeMacs(randomBytes(32)));
    ok(await runtime.start('acme', 'after', { agent: 'scribe', plugin: 'notes', subject: 'later', input: {} }));
    const { rows: next } = await pool.query<{ seq: string; line: string }>(
      `SELECT seq, line FROM custodian_audit_lines WHERE tenant = 'acme' AND seq >= $1 ORDER BY seq`,
      [wantedSizes.acme],
    );
    expect(next.length).toBeGreaterThan(0);
    expect(next.map((r) => Number(r.seq))).toEqual(next.map((_, i) => wantedSizes.acme! + i));
    expect(JSON.parse(next[0]!.line)).toMatchObject({ seq: wantedSizes.acme, kind: 'job_started', job: 'after', subject: 'later' });
    // Until the integrator has passed the log's last event: a transaction open elsewhere on the
    // server holds the log's readers below it for a while (an empty batch is no proof of the end).
    const head = Number((await pool.query<{ p: string }>('SELECT max(position) AS p FROM custodian_events')).rows[0]!.p);
    while ((await runBatch(store, models, audit, 500)).checkpoint < head);
    const after = await sizes(pool);
    expect(after.acme).toBe(wantedSizes.acme! + next.length);
    // The tree that grew is consistent with the one signed before: its old root is unchanged.
    expect(await rootOf(pool, 'acme', signedSizes.acme!)).toEqual(signed.acme);
    await store.close();
  });
});
