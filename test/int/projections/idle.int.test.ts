import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Idle means idle: a service with nothing to do commits nothing. The count is PostgreSQL's
 * own (`pg_stat_database.xact_commit`, read-only transactions included) for the service's
 * database alone, read from another database so the observer's statements never count.
 *
 * A backend publishes its counters at most once a second, or up to ten seconds after it went
 * idle, and at exit: so the window opens only after every earlier commit has surely been
 * published, and closes by ending the service's sessions, which publishes what is pending.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let svc: TestService;
let observer: pg.Client;
let database: string;

const commits = async () => {
  await observer.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await observer.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [database]);
  return Number(rows[0]!.n);
};

beforeAll(async () => {
  svc = await startTestService();
  database = new URL(svc.databaseUrl).pathname.slice(1);
  observer = new pg.Client({ connectionString: inject('databaseUrl') });
  await observer.connect();
  const { rows } = await observer.query<{ db: string }>('SELECT current_database() AS db');
  expect(rows[0]!.db).not.toBe(database);
});
afterAll(async () => {
  await observer?.end();
  await svc?.stop();
});

describe('an idle service', () => {
  it('commits no transaction at all while nothing happens (after work was done and projected)', async () => {
    // Work for every projection, the lagging audit log included.
    expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
    expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBeLessThan(300);
    const c = await caller(svc, 'acme');
    expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'r1', body: { n: 1 }, expect: 0 })).status).toBe(200);
    await svc.runner.catchUp();
    const head = await svc.store.headPosition();
    expect(Object.values(svc.runner.checkpoints()).every((p) => p === head)).toBe(true);

    // Nothing left for autovacuum to do in this database (catalogs included), so no worker of
    // the server's own counts here either.
    const maintenance = new pg.Client({ connectionString: svc.databaseUrl });
    await maintenance.connect();
    await maintenance.query('VACUUM ANALYZE');
    await maintenance.end();

    await sleep(11_000);
    const before = await commits();
    // The view does count this database: the work above is in it.
    expect(before).toBeGreaterThan(0);

    await sleep(10_000);
    await observer.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
    for (let i = 0; i < 200; i++) {
      const { rows } = await observer.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [database]);
      if (Number(rows[0]!.n) === 0) break;
      await sleep(50);
    }
    expect(await commits()).toBe(before);
  }, 90_000);
});
