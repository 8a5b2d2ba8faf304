import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobCommands } from '../../../commands/jobs.ts';
import { tenantCommands } from '../../../commands/tenants.ts';
import { systemClock } from '../../../adapters/clock/system.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { envelopeMacs } from '../../../adapters/keys/envelope-keys.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { jobsProjection } from '../../../projections/jobs.ts';
import { revocationsProjection } from '../../../projections/revocations.ts';
import { createProjectionRunner, runBatch } from '../../../projections/runner.ts';
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
let runtime: ReturnType<typeof jobCommands>;
let jobs = 0;

/** A job with a call: JobStarted, EnvelopeBlockAppended, CallMinted — none of which the revocations model reads. */
const aJob = async () => {
  const job = `job-${jobs++}`;
  ok(await runtime.start('acme', job, { agent: 'scribe', plugin: 'notes', subject: 's', input: {} }));
  ok(await runtime.mintCall('acme', job, 'save', {}));
};

const checkpoint = async (name: string) => {
  const { rows } = await models.query<{ position: number }>('SELECT position FROM custodian_checkpoints WHERE name = $1', [name]);
  return rows.length === 0 ? null : Number(rows[0]!.position);
};

/** Waits until every committed event is readable (another file's transaction on the server may hold the head back). */
const readableHead = async () => {
  const committed = await store.committedHead!();
  while ((await store.headPosition()) < committed) await new Promise((r) => setTimeout(r, 20));
  return committed;
};

/** The store, counting the transactions opened on it. */
const counting = (inner: ReadModelStore) => {
  const counter = {
    transactions: 0,
    store: {
      query: inner.query.bind(inner),
      transaction: <T>(work: Parameters<ReadModelStore['transaction']>[0]) => {
        counter.transactions++;
        return inner.transaction(work) as Promise<T>;
      },
    } as ReadModelStore,
  };
  return counter;
};

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 10);
  store = await postgresEventStore(pool);
  models = postgresReadModelStore(pool);
  runtime = jobCommands(store, systemClock, envelopeMacs(masterKey));
  const tenants = tenantCommands(store, systemClock);
  ok(await tenants.create('acme', {}));
  ok(await tenants.installPlugin('acme', { name: 'notes', functions: ['save'], agents: ['scribe'] }));
});
afterAll(async () => {
  await store.close();
  await pool.end();
  await db.drop();
});

describe('a batch with nothing to apply moves its checkpoints in one statement', () => {
  it('given a span of events the group reads none of, when its batch runs, then its checkpoints move to the span end without a transaction', async () => {
    // Given: the revocations model stands at the head, then jobs it does not read are appended.
    const c = counting(models);
    await readableHead();
    await runBatch(store, c.store, [revocationsProjection], 1000);
    const start = await checkpoint('revocations');
    expect(start).not.toBeNull();
    await aJob();
    await aJob();
    const head = await readableHead();
    expect(head).toBeGreaterThan(start!);
    const before = c.transactions;
    // When
    const r = await runBatch(store, c.store, [revocationsProjection], 1000);
    // Then
    expect(r.checkpoint).toBe(head);
    expect(await checkpoint('revocations')).toBe(head);
    expect(c.transactions).toBe(before);
  });

  it('given a memory ahead of the table, when a batch of unread events runs from that memory, then the table is not moved over events it never read', async () => {
    // Given: the table stands at p; a caller believes the model is further on (at q > p).
    await runBatch(store, models, [revocationsProjection], 1000);
    const p = (await checkpoint('revocations'))!;
    await aJob();
    const q = await readableHead();
    await aJob();
    const head = await readableHead();
    // When: the batch reads from q (its memory), a span that leaves (p, q] unseen.
    const r = await runBatch(store, models, [revocationsProjection], 1000, { revocations: q });
    // Then: the row is left where it was; a batch from the table's own place moves it.
    expect(r.checkpoint).toBe(head);
    expect(await checkpoint('revocations')).toBe(p);
    await runBatch(store, models, [revocationsProjection], 1000);
    expect(await checkpoint('revocations')).toBe(head);
  });

  it('given a group where one model reads the span and one does not, when the batch runs, then both move in the one transaction and the reader applied it', async () => {
    await runBatch(store, models, [jobsProjection, revocationsProjection], 1000);
    await aJob();
    const head = await readableHead();
    const c = counting(models);
    await runBatch(store, c.store, [jobsProjection, revocationsProjection], 1000);
    expect(c.transactions).toBe(1);
    expect(await checkpoint('jobs')).toBe(head);
    expect(await checkpoint('revocations')).toBe(head);
    const { rows } = await models.query<{ n: number }>('SELECT count(*)::int AS n FROM rm_jobs WHERE id = $1', [`job-${jobs - 1}`]);
    expect(rows[0]!.n).toBe(1);
  });
});

describe('the runner lets events gather between cycles, and never makes an answer wait for it', () => {
  it('given a runner resting between cycles, when an answer waits for a new event, then it is applied at once; catchUp does not rest; stop ends the rest', async () => {
    // A rest far longer than the waits below: only a cut-short rest can pass this test.
    const runner = createProjectionRunner(store, models, [jobsProjection, revocationsProjection], { coalesceMs: 600_000 });
    runner.start();
    try {
      await aJob();
      const first = await readableHead();
      expect(await runner.waitFor(first, 30_000)).toBe(true);
      // The loop has cycled: the next appends wake it into a rest of 600 s.
      await aJob();
      const second = await readableHead();
      await new Promise((r) => setTimeout(r, 100));
      expect(await runner.waitFor(second, 30_000)).toBe(true);
      expect(runner.checkpoints().jobs).toBeGreaterThanOrEqual(second);
      await aJob();
      const third = await readableHead();
      await runner.catchUp();
      expect(runner.checkpoints().jobs).toBeGreaterThanOrEqual(third);
    } finally {
      await runner.stop();
    }
  });
});
