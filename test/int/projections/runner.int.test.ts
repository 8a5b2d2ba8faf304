import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobCommands } from '../../../commands/jobs.ts';
import { tenantCommands } from '../../../commands/tenants.ts';
import { systemClock } from '../../../adapters/clock/system.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { allProjections } from '../../../projections/all.ts';
import type { Projection } from '../../../projections/projection.ts';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { envelopeMacs } from '../../../adapters/keys/envelope-keys.ts';
import { randomBytes } from 'node:crypto';
import { createProjectionRunner, rebuildProjection } from '../../../projections/runner.ts';
import { freshDatabase } from '../../support/database.ts';
import { dumpReadModels } from '../../support/dump.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const ok = <T>(r: E.Either<unknown, T>): T => {
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left));
  return r.right;
};

const masterKey = randomBytes(32);
let projections: readonly Projection[] = [];
const dump = (db: ReadModelStore) => dumpReadModels(db, projections);

const seed = async (store: EventStore, jobs: number) => {
  const tenants = tenantCommands(store, systemClock);
  const runtime = jobCommands(store, systemClock, envelopeMacs(masterKey));
  ok(await tenants.create('acme', {}));
  ok(await tenants.installPlugin('acme', { name: 'notes', functions: ['save', 'read'], agents: ['scribe'] }));
  for (let j = 0; j < jobs; j++) {
    ok(await runtime.start('acme', `job-${j}`, { agent: 'scribe', plugin: 'notes', subject: `s${j}`, input: { j } }));
    const first = ok(await runtime.mintCall('acme', `job-${j}`, 'save', {}));
    ok(await runtime.mintCall('acme', `job-${j}`, 'read', { step: 2 }));
    ok(await runtime.mintCall('acme', `job-${j}`, 'read', { step: 2 }));
    ok(await runtime.endCall('acme', `job-${j}`, first.call));
    if (j % 2 === 0) ok(await runtime.end('acme', `job-${j}`));
  }
};

const runWorker = (url: string, batchSize: number, pauseMs: number, killAfterLines: number | null) =>
  new Promise<{ lines: string[]; killed: boolean }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'fixtures/worker.ts'), url, String(batchSize), String(pauseMs), masterKey.toString('base64')],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const lines: string[] = [];
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      lines.push(...parts);
      if (killAfterLines !== null && lines.length >= killAfterLines) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve({ lines, killed: signal === 'SIGKILL' }));
  });

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: EventStore;
let models: ReadModelStore;

/**
 * Waits until every committed event is visible: another test file's transaction on the server
 * holds the head back until it ends, which nothing here can be told of (the runner itself waits
 * such a transaction out for up to a minute), so this looks until then, within the test's timeout.
 */
const visibleHead = async () => {
  const { rows } = await pool.query<{ p: number }>('SELECT max(position) AS p FROM custodian_events');
  const newest = Number(rows[0]!.p);
  let head = await store.headPosition();
  while (head < newest) {
    await new Promise((r) => setTimeout(r, 20));
    head = await store.headPosition();
  }
  expect(head).toBe(newest);
  return head;
};

describe('projection runner (postgres)', () => {
  beforeAll(async () => {
    db = await freshDatabase();
    pool = createPool(db.url, 10);
    store = await postgresEventStore(pool);
    models = postgresReadModelStore(pool);
    projections = allProjections({ sealer: await postgresKeystore(pool, masterKey) });
    await seed(store, 40);
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await db.drop();
  });

  it('survives SIGKILL between and inside batches: the read model equals a fresh rebuild, each event applied once', async () => {
    const head = await visibleHead();
    expect(head).toBeGreaterThan(250);

    // Killed while resting between batches…
    const first = await runWorker(db.url, 13, 40, 9);
    expect(first.killed).toBe(true);
    // …then killed with no rest, most likely inside a batch's transaction.
    const second = await runWorker(db.url, 13, 0, 14);
    expect(second.killed).toBe(true);
    const { rows: mid } = await models.query<{ name: string; position: number }>('SELECT name, position FROM custodian_checkpoints');
    expect(mid.some((c) => Number(c.position) < head)).toBe(true);

    const last = await runWorker(db.url, 13, 0, null);
    expect(last.lines.at(-1)).toBe('done');
    const resumed = await dump(models);

    for (const p of projections) await rebuildProjection(store, models, p);
    expect(await dump(models)).toEqual(resumed);

    // calls_minted is a counter: a batch applied twice would show here.
    const jobs = resumed.rm_jobs as { id: string; calls_minted: number }[];
    expect(jobs).toHaveLength(40);
    expect(jobs.every((j) => j.calls_minted === 3)).toBe(true);
    const { rows: checkpoints } = await models.query<{ position: number }>('SELECT position FROM custodian_checkpoints');
    expect(checkpoints.map((c) => Number(c.position))).toEqual(projections.map(() => head));
  });

  it('an in-process runner catches up, answers waitFor, and follows new events', async () => {
    const runner = createProjectionRunner(store, models, projections, { batchSize: 50, pollMs: 50 });
    runner.start();
    const runtime = jobCommands(store, systemClock, envelopeMacs(masterKey));
    const started = ok(await runtime.start('acme', 'late', { agent: 'scribe', plugin: 'notes', subject: 'late' }));
    // The test's whole timeout, not the answers' 10 s: the position may wait on another file's transaction to be readable.
    expect(await runner.waitFor(started.position!, 60_000)).toBe(true);
    const { rows } = await models.query<{ status: string }>(`SELECT status FROM rm_jobs WHERE tenant = 'acme' AND id = 'late'`);
    expect(rows).toEqual([{ status: 'running' }]);
    await runner.stop();
  });

  it('rebuild reports progress up to the head', async () => {
    await visibleHead();
    const seen: [number, number][] = [];
    const position = await rebuildProjection(store, models, projections[1]!, (done, total) => seen.push([done, total]), 100);
    const head = await store.headPosition();
    expect(position).toBe(head);
    expect(seen.at(-1)).toEqual([head, head]);
    expect(seen.length).toBeGreaterThan(2);
  });
});
