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
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { allProjections } from '../../../projections/all.ts';
import type { Projection } from '../../../projections/projection.ts';
import { createProjectionRunner } from '../../../projections/runner.ts';
import { freshDatabase } from '../../support/database.ts';

const ok = <T>(r: E.Either<unknown, T>): T => {
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left));
  return r.right;
};

const masterKey = randomBytes(32);
let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: EventStore;
let models: ReadModelStore;
let projections: readonly Projection[];

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 10);
  store = auditLinesStore(await postgresEventStore(pool));
  models = postgresReadModelStore(pool);
  projections = allProjections({ sealer: await postgresKeystore(pool, masterKey) });
  const tenants = tenantCommands(store, systemClock);
  const runtime = jobCommands(store, systemClock, envelopeMacs(masterKey));
  ok(await tenants.create('acme', {}));
  ok(await tenants.installPlugin('acme', { name: 'notes', functions: ['save'], agents: ['scribe'] }));
  for (let j = 0; j < 120; j++) {
    ok(await runtime.start('acme', `job-${j}`, { agent: 'scribe', plugin: 'notes', subject: `s${j}`, input: { j } }));
    ok(await runtime.mintCall('acme', `job-${j}`, 'save', {}));
    ok(await runtime.end('acme', `job-${j}`));
  }
});
afterAll(async () => {
  await store.close();
  await pool.end();
  await db.drop();
});

describe('a lagging projection does not starve the others', () => {
  it('given a long audit backlog, when an event is appended behind it, then the leading models apply it (and a waiter is answered) while most of the audit backlog is still ahead', async () => {
    // Committed is not yet readable while another test's transaction holds the cluster's xmin:
    // wait until the whole backlog can be read.
    const backlog = await store.committedHead!();
    while ((await store.headPosition()) < backlog) await new Promise((r) => setTimeout(r, 20));
    expect(backlog).toBeGreaterThan(300);
    const runtime = jobCommands(store, systemClock, envelopeMacs(masterKey));
    let auditAtArrival: number | null = null;
    const batches: string[] = [];
    // The leading models at the backlog's head, the audit log not started: then one more event.
    // By construction, not by timing, it arrives with the whole audit backlog still ahead.
    const leadingOnly = createProjectionRunner(
      store,
      models,
      projections.filter((p) => p.name !== 'audit'),
      { batchSize: 20 },
    );
    await leadingOnly.catchUp();
    await leadingOnly.stop();
    const arrived = ok(await runtime.start('acme', 'late', { agent: 'scribe', plugin: 'notes', subject: 'late' })).position!;
    expect(arrived).toBeGreaterThan(backlog);
    // Readable before the runner starts (a transaction open elsewhere in the cluster can hold it back).
    while ((await store.headPosition()) < arrived) await new Promise((r) => setTimeout(r, 20));
    const runner = createProjectionRunner(store, models, projections, {
      batchSize: 20,
      lagging: ['audit'],
      onBatch: (group, checkpoint) => {
        batches.push(group);
        if (group !== 'audit' && checkpoint >= arrived && auditAtArrival === null) auditAtArrival = runner.checkpoints().audit!;
      },
    });
    runner.start();
    try {
      expect(await runner.waitFor(arrived, 60_000)).toBe(true);
      // The audit log had its share only: most of its backlog was still ahead of it.
      expect(auditAtArrival).not.toBeNull();
      expect(auditAtArrival!).toBeLessThan(backlog / 2);
      const { rows } = await models.query<{ status: string }>(`SELECT status FROM rm_jobs WHERE tenant = 'acme' AND id = 'late'`);
      expect(rows).toEqual([{ status: 'running' }]);

      // And the audit log still gets there: every projection at the head.
      await runner.catchUp();
      const head = await store.headPosition();
      expect(Object.values(runner.checkpoints())).toEqual(projections.map(() => head));
      const { rows: entries } = await models.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_audit_lines WHERE tenant = 'acme'`);
      expect(entries[0]!.n).toBeGreaterThan(240);
    } finally {
      await runner.stop();
    }
  });
});
