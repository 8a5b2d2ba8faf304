import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobCommands } from '../../../commands/jobs.ts';
import { tenantCommands } from '../../../commands/tenants.ts';
import { systemClock } from '../../../adapters/clock/system.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { auditLinesStore } from '../../../adapters/eventstore/audit-lines.ts';
import { envelopeMacs } from '../../../adapters/keys/envelope-keys.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { createAuditProjection } from '../../../projections/audit.ts';
import { rebuildProjection, runBatch } from '../../../projections/runner.ts';
import { freshDatabase } from '../../support/database.ts';
import { dumpReadModels } from '../../support/dump.ts';

const ok = <T>(r: E.Either<unknown, T>): T => {
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left));
  return r.right;
};

const masterKey = randomBytes(32);
let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: EventStore;
let models: ReadModelStore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 10);
  store = auditLinesStore(await postgresEventStore(pool));
  models = postgresReadModelStore(pool);
});
afterAll(async () => {
  await store.close();
  await pool.end();
  await db.drop();
});

/** Jobs on two tenants: each start, mint and end is an audit entry or a job fact. */
const activity = async (from: number, to: number) => {
  const tenants = tenantCommands(store, systemClock);
  const runtime = jobCommands(store, systemClock, envelopeMacs(masterKey));
  for (const t of ['acme', 'beta']) {
    if (from === 0) {
      ok(await tenants.create(t, {}));
      ok(await tenants.installPlugin(t, { name: 'notes', functions: ['save'], agents: ['scribe'] }));
    }
    for (let j = from; j < to; j++) {
      ok(await runtime.start(t, `job-${j}`, { agent: 'scribe', plugin: 'notes', subject: `s${j}`, input: { j } }));
      ok(await runtime.mintCall(t, `job-${j}`, 'save', {}));
      ok(await runtime.end(t, `job-${j}`));
    }
  }
};

/**
 * Runs batches until the projection holds every event written so far. An empty batch is not
 * the end: a transaction elsewhere in the cluster (another test file's) holds the log's
 * readable head back until it ends, so wait for the head to pass the last event written.
 */
const drain = async (p: ReturnType<typeof createAuditProjection>, batchSize: number) => {
  const { rows } = await pool.query<{ last: string | null }>('SELECT max(position) AS last FROM custodian_events');
  const last = Number(rows[0]?.last ?? 0);
  for (;;) {
    const r = await runBatch(store, models, p, batchSize);
    if (r.applied > 0) continue;
    if (r.checkpoint >= last) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('the audit projection keeps its trees\u2019 right edges in memory', () => {
  it('given two runners taking turns on one database, each with its own memory, then the log and tree equal a rebuild (a memory left behind is never trusted)', async () => {
    const one = createAuditProjection();
    const two = createAuditProjection();
    await activity(0, 7);
    await drain(one, 5);
    await activity(7, 13);
    // The second runner moves the model on; the first one's memory is now behind the checkpoint.
    await drain(two, 3);
    await activity(13, 21);
    await drain(one, 4);
    await drain(two, 7);
    const live = await dumpReadModels(models, [one]);
    expect((live.rm_audit_nodes as unknown[]).length).toBeGreaterThan(160);

    await rebuildProjection(store, models, createAuditProjection());
    expect(await dumpReadModels(models, [one])).toEqual(live);
  });
});
