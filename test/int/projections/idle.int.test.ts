import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../../adapters/embedded-postgres/start.ts';
import { newAuditKey } from '../../../adapters/keys/audit-key.ts';
import { startService, type Service } from '../../../adapters/service.ts';
import { ADMIN_KEY } from '../../support/service.ts';

/**
 * Idle means idle: a service with nothing to do commits nothing. The count is PostgreSQL's
 * own (`pg_stat_database.xact_commit`, read-only transactions included) for the service's
 * database alone, read from another database so the observer's statements never count.
 *
 * The service gets a server of its own: on the shared one, other test files' NOTIFY traffic
 * makes the server wake our LISTEN session now and then to move its queue pointer, and that
 * internal read is counted as a transaction in our database, though the service sent nothing.
 *
 * A backend publishes its counters at most once a second, or up to ten seconds after it went
 * idle, and always at exit. So the window opens by ending the sessions that worked before it
 * — all but the one that LISTENs, whose last work (each notification it receives is a
 * transaction) was more than ten seconds earlier — and closes by ending every session of the
 * service: each publishes what it has pending, and nothing from before the window lands in
 * it. The pool reconnects on demand: only a statement would need a session again.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
let server: EmbeddedServer;
let svc: Service;
let observer: pg.Client;
const database = 'idle';

const admin = async (method: string, p: string, body?: unknown) => {
  const res = await fetch(`${svc.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

const readCommits = async () => {
  await observer.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await observer.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [database]);
  return Number(rows[0]!.n);
};

/** Whether a process of this machine (the server's backends are) still exists. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Ends the service's sessions (matching `also`) and waits until their processes are gone: a
 * backend leaves the activity view before its exit publishes its counters, and the process
 * ends only after that, so then the count holds all they did. The waits are on the server's
 * own processes (no signal but to look); the bound only turns a hang into a clear failure.
 */
const endSessions = async (also: string) => {
  const others = `datname = $1 AND pid <> pg_backend_pid() ${also}`;
  const { rows: ended } = await observer.query<{ pid: number }>(`SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE ${others}`, [database]);
  for (let i = 0; i < 2400; i++) {
    const { rows } = await observer.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE ${others}`, [database]);
    if (Number(rows[0]!.n) === 0 && !ended.some((e) => alive(e.pid))) return;
    await sleep(25);
  }
  throw new Error(`the service sessions did not end: ${ended.filter((e) => alive(e.pid)).map((e) => e.pid)} still running`);
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'custodian-idle-'));
  server = await startEmbeddedPostgres({ dataDir: dir, database, persistent: false });
  svc = await startService({ databaseUrl: server.url, adminKey: ADMIN_KEY, masterKey: randomBytes(32), auditKey: newAuditKey(), port: 0 });
  const url = new URL(server.url);
  url.pathname = '/postgres';
  observer = new pg.Client({ connectionString: url.toString() });
  await observer.connect();
});
afterAll(async () => {
  await observer?.end();
  await svc?.close().catch(() => undefined);
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an idle service', () => {
  it('commits no transaction at all over 10 s while nothing happens (after work was done and projected)', async () => {
    // Work for every projection, the lagging audit log included.
    expect((await admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
    expect((await admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBeLessThan(300);
    expect((await admin('POST', '/v1/tenants/acme/jobs', { id: 'j1', agent: 'scribe', plugin: 'notes', subject: 's', input: 'x' })).status).toBeLessThan(300);
    expect((await admin('POST', '/v1/tenants/acme/jobs/j1/calls', { function: 'save' })).status).toBe(201);
    await svc.runner.catchUp();
    const head = await svc.store.headPosition();
    expect(head).toBeGreaterThan(3);
    expect(Object.values(svc.runner.checkpoints()).every((p) => p === head)).toBe(true);

    // Nothing left for autovacuum to do in this database (catalogs included), so no worker of
    // the server's own counts here either.
    const maintenance = new pg.Client({ connectionString: server.url });
    await maintenance.connect();
    await maintenance.query('VACUUM ANALYZE');
    await maintenance.end();

    // The LISTEN session's own counters (the notifications of the work above) are out.
    await sleep(12_000);
    await endSessions(`AND query <> 'LISTEN custodian_events'`);
    const before = await readCommits();
    // The view does count this database: the work above is in it.
    expect(before).toBeGreaterThan(0);

    await sleep(10_000);
    await endSessions('');
    expect(await readCommits()).toBe(before);
  }, 120_000);
});
