import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobCommands } from '../../../commands/jobs.ts';
import { tenantCommands } from '../../../commands/tenants.ts';
import { systemClock } from '../../../adapters/clock/system.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { auditLinesStore } from '../../../adapters/eventstore/audit-lines.ts';
import { inlineProjections } from '../../../adapters/eventstore/inline-projections.ts';
import { envelopeMacs } from '../../../adapters/keys/envelope-keys.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import { copyTenant, purgeTenant } from '../../../adapters/shards/tenant-copy.ts';
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

interface Side {
  db: Awaited<ReturnType<typeof freshDatabase>>;
  pool: pg.Pool;
  store: EventStore;
  models: ReadModelStore;
}

const masterKey = randomBytes(32);
const sides: Side[] = [];

const side = async (): Promise<Side> => {
  const db = await freshDatabase();
  const pool = createPool(db.url, 5);
  const s = { db, pool, store: auditLinesStore(await postgresEventStore(pool)), models: postgresReadModelStore(pool) };
  sides.push(s);
  return s;
};

beforeAll(async () => {
  await side();
  await side();
});
afterAll(async () => {
  for (const s of sides) {
    await s.store.close();
    await s.pool.end();
    await s.db.drop();
  }
});

/** Jobs of one tenant: each start, mint and end adds audit entries. */
const activity = async (s: Side, from: number, to: number) => {
  const runtime = jobCommands(s.store, systemClock, envelopeMacs(masterKey));
  if (from === 0) {
    const tenants = tenantCommands(s.store, systemClock);
    ok(await tenants.create('acme', {}));
    ok(await tenants.installPlugin('acme', { name: 'notes', functions: ['save'], agents: ['scribe'] }));
  }
  for (let j = from; j < to; j++) {
    ok(await runtime.start('acme', `job-${j}`, { agent: 'scribe', plugin: 'notes', subject: `s${j}`, input: { j } }));
    ok(await runtime.mintCall('acme', `job-${j}`, 'save', {}));
    ok(await runtime.end('acme', `job-${j}`));
  }
};

/** Runs batches until the projection holds every event the side's log has (see audit-memory.int.test.ts for why an empty batch is not the end). */
const drain = async (s: Side, p: ReturnType<typeof createAuditProjection>) => {
  const { rows } = await s.pool.query<{ last: string | null }>('SELECT max(position) AS last FROM custodian_events');
  const last = Number(rows[0]?.last ?? 0);
  for (;;) {
    const r = await runBatch(s.store, s.models, p, 50);
    if (r.applied > 0) continue;
    if (r.checkpoint >= last) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const head = async (s: Side) => Number((await s.pool.query<{ size: string }>(`SELECT size FROM rm_audit_heads WHERE tenant = 'acme'`)).rows[0]?.size ?? 0);

describe('the audit projection of a database a tenant left and came back to', () => {
  it('given the runner that remembers the tenant’s tree at the size it left at, then the tree it integrates from the copied lines equals a rebuild', async () => {
    const [one, two] = sides as [Side, Side];
    const here = createAuditProjection();
    const there = createAuditProjection();
    await activity(one, 0, 3);
    await drain(one, here);
    const left = await head(one);
    expect(left).toBeGreaterThan(0);
    // Moved out: copied, then removed here (no event appended here since: the runner's memory stays trusted).
    await copyTenant(one.pool, two.pool, inlineProjections([]), 'acme');
    await purgeTenant(one.pool, 'acme');
    await drain(two, there);
    await activity(two, 3, 6);
    await drain(two, there);
    const grown = await head(two);
    expect(grown).toBeGreaterThan(left);
    // Moved back: the stored lines at their places, the tree to build again from the first.
    await copyTenant(two.pool, one.pool, inlineProjections([]), 'acme');
    await purgeTenant(two.pool, 'acme');
    await drain(one, here);
    expect(await head(one)).toBe(grown);
    const live = await dumpReadModels(one.models, [here]);
    expect((live.rm_audit_nodes as unknown[]).length).toBeGreaterThanOrEqual(grown);

    await rebuildProjection(one.store, one.models, createAuditProjection());
    expect(await dumpReadModels(one.models, [here])).toEqual(live);
  });
});
