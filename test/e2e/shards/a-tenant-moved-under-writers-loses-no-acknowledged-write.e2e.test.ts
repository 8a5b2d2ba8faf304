import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyConsistency } from '../../../domain/audit/merkle.ts';
import { placementStore } from '../../../adapters/shards/placement.ts';
import { copyTenant } from '../../../adapters/shards/tenant-copy.ts';
import { caller, type Caller } from '../../support/records.ts';
import { freePort } from '../../support/free-port.ts';
import { ADMIN_KEY, type TestService } from '../../support/service.ts';
import { shardedDeployment, startTenantServers, type ShardedInstance, type TenantServer } from '../../support/shards.ts';

let servers: TenantServer[] = [];
let deployment: Awaited<ReturnType<typeof shardedDeployment>>;
let a: ShardedInstance;
let b: ShardedInstance;

/** The tenant's events in each database, by name. */
const eventCounts = async (tenant: string): Promise<Record<string, number>> => {
  const out: Record<string, number> = {};
  for (const s of servers) {
    const client = new pg.Client({ connectionString: s.url });
    await client.connect();
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_events WHERE metadata->>'tenant' = $1`, [tenant]);
    await client.end();
    out[s.name] = rows[0]!.n;
  }
  return out;
};

/** The tables of a database that hold any row naming the tenant (as a JSON string anywhere in the row). */
const tablesNaming = async (server: TenantServer, tenant: string): Promise<string[]> => {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  const { rows: tables } = await client.query<{ t: string }>(
    `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const out: string[] = [];
  for (const { t } of tables) {
    const { rows } = await client.query(`SELECT 1 FROM ${client.escapeIdentifier(t)} x WHERE strpos(to_jsonb(x)::text, $1) > 0 LIMIT 1`, [
      JSON.stringify(tenant),
    ]);
    if (rows.length > 0) out.push(t);
  }
  await client.end();
  return out;
};

const root = path.resolve(import.meta.dirname, '../../..');

/** `custodian <args>` against an instance, as an auditor runs it: a process of its own. */
const cli = async (instance: ShardedInstance, ...args: string[]) => {
  try {
    const r = await promisify(execFile)(process.execPath, [path.join(root, 'bin/custodian.js'), ...args], {
      encoding: 'utf8',
      env: { ...process.env, CUSTODIAN_URL: instance.url, CUSTODIAN_ADMIN_KEY: ADMIN_KEY },
      maxBuffer: 64 << 20,
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
};

/** The tenant's signed checkpoint (its note within) through the router, kept in a file as `audit download --previous` takes it. */
const keepCheckpoint = async (tenant: string, file: string) => {
  // The audit tree is integrated behind the writes: every line written so far in first.
  for (const instance of [a, b]) for (const cell of instance.cells.values()) await cell.runner.catchUp();
  const checkpoint = await a.admin('GET', `/v1/tenants/${tenant}/audit/checkpoint`);
  expect(checkpoint.status).toBe(200);
  expect((checkpoint.body as { note: string }).note).toContain(`/${tenant}\n`);
  writeFileSync(path.join(childDir, file), JSON.stringify(checkpoint.body));
  const { size, root } = checkpoint.body as { size: number; root: string };
  return { size, root };
};

/** `custodian audit download --previous` then `audit verify` with the public key alone, through the router. */
const auditVerifies = async (instance: ShardedInstance, tenant: string, previous: string) => {
  writeFileSync(path.join(childDir, 'audit.pem'), await (await fetch(`${instance.url}/v1/audit-key`)).text());
  const bundle = await cli(instance, 'audit', 'download', '--tenant', tenant, '--previous', path.join(childDir, previous));
  expect(bundle.code, bundle.err).toBe(0);
  writeFileSync(path.join(childDir, `${tenant}-bundle.jsonl`), bundle.out);
  return cli(instance, 'audit', 'verify', path.join(childDir, `${tenant}-bundle.jsonl`), '--public-key', path.join(childDir, 'audit.pem'), '--tenant', tenant);
};

const newTenant = async (id: string, database: string) => {
  expect((await a.admin('POST', '/v1/tenants', { id, database })).status).toBe(201);
  expect((await a.admin('POST', `/v1/tenants/${id}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
};

beforeAll(async () => {
  servers = await startTenantServers(3);
  deployment = await shardedDeployment(servers);
  a = await deployment.instance();
  b = await deployment.instance();
}, 180_000);

let child: ChildProcess | null = null;
const childDir = mkdtempSync(path.join(tmpdir(), 'custodian-shards-child-'));

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(childDir, { recursive: true, force: true });
  await deployment?.close();
  for (const s of servers) await s.remove();
});

describe('a tenant moved between databases', () => {
  it('keeps every write answered 2xx while 8 clients write through it, answers none 5xx but 503 moving, and its audit log goes on consistent with before', async () => {
    await newTenant('mover', 'db1');
    const writers: Caller[] = [];
    for (let i = 0; i < 8; i++) writers.push(await caller((i % 2 === 0 ? a : b) as unknown as TestService, 'mover'));
    for (const w of writers) expect((await w.rec({ op: 'put', scope: 'tenant', record_key: `w-${w.call}/0`, body: { n: 0 }, expect: 0 })).status).toBe(200);
    const before = await keepCheckpoint('mover', 'mover-before.json');
    expect(before.size).toBeGreaterThan(0);

    const acknowledged: { key: string; n: number }[] = [];
    const unexpected: unknown[] = [];
    let moving = 0;
    let moveDone = false;
    let afterMove = 0;
    const write = async (first: Caller, i: number) => {
      let w = first;
      // Each writer goes on until the move has answered and every writer has written past it.
      for (let n = 1; !moveDone || afterMove < 16; n++) {
        const key = `w-${first.call}/${n}`;
        for (;;) {
          const put = await w.rec({ op: 'put', scope: 'tenant', record_key: key, body: { n }, expect: 0 });
          // A call makes 64 requests: the writer's job mints another call, as an agent's step would.
          if (put.status === 429 && put.body?.error === 'requests') {
            w = await caller((i % 2 === 0 ? a : b) as unknown as TestService, 'mover', { job: first.job });
            continue;
          }
          if (put.status === 200) {
            acknowledged.push({ key, n });
            if (moveDone) afterMove++;
            break;
          }
          if (put.status === 503 && put.body?.error === 'moving') {
            moving++;
            await sleep(50);
            continue;
          }
          unexpected.push({ status: put.status, body: put.body });
          return;
        }
      }
    };
    const writing = Promise.all(writers.map((w, i) => write(w, i)));
    // The move starts once every writer has written at least once more.
    while (acknowledged.length < 8) await sleep(10);
    const moved = await b.admin('POST', '/v1/tenants/mover/move', { to: 'db2' });
    moveDone = true;
    await writing;

    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ tenant: 'mover', from: 'db1', to: 'db2', moved: true });
    expect(moved.body.audit.size).toBeGreaterThanOrEqual(before.size);
    expect(unexpected).toEqual([]);
    expect(moving).toBeGreaterThan(0);
    // Every acknowledged write is there, read through either instance on the new database.
    for (const [i, instance] of [a, b].entries()) {
      let reader = await caller(instance as unknown as TestService, 'mover');
      for (const [j, { key, n }] of acknowledged.filter((_, j) => j % 2 === i).entries()) {
        // A call makes 64 requests: a new one every 60 reads.
        if (j > 0 && j % 60 === 0) reader = await caller(instance as unknown as TestService, 'mover', { job: reader.job });
        const got = await reader.rec({ op: 'get', scope: 'tenant', record_key: key });
        expect(got.status, key).toBe(200);
        expect(got.body.record.body).toEqual({ n });
      }
    }
    expect((await a.admin('GET', '/v1/tenants/mover')).body.database).toBe('db2');
    // Whole on db2, nothing left on db1.
    const counts = await eventCounts('mover');
    expect(counts.db1).toBe(0);
    expect(counts.db2).toBeGreaterThan(acknowledged.length);
    expect(counts.db3).toBe(0);
    // The old copy is gone from every table, the read models' included.
    expect(await tablesNaming(servers[0]!, 'mover')).toEqual([]);
    expect(await tablesNaming(servers[1]!, 'mover')).toContain('rm_tenants');
    // The log after the move extends the log before it: a consistency proof from the checkpoint taken before.
    const after = (await a.admin('GET', '/v1/tenants/mover/audit/checkpoint')).body as { size: number; root: string };
    expect(after.size).toBeGreaterThan(before.size);
    const proof = (await a.admin('GET', `/v1/tenants/mover/audit/proof?from=${before.size}&to=${after.size}`)).body as { proof: string[] };
    expect(
      verifyConsistency(
        before.size,
        after.size,
        proof.proof.map((p) => Buffer.from(p, 'base64')),
        Buffer.from(before.root, 'base64'),
        Buffer.from(after.root, 'base64'),
      ),
    ).toBe(true);
    // What an auditor runs: the bundle downloaded through the router verifies offline, consistent with the checkpoint kept before the move.
    const verified = await auditVerifies(b, 'mover', 'mover-before.json');
    expect(verified, verified.err).toMatchObject({ code: 0, out: expect.stringContaining(`consistent with the checkpoint of size ${before.size}`) });
  }, 600_000);

  it('moves a tenant back into a database it left (db1 → db2 → db1) with its audit tree the same, and its log goes on verifiable', async () => {
    await newTenant('returner', 'db1');
    const w = await caller(a as unknown as TestService, 'returner');
    for (let i = 0; i < 3; i++) expect((await w.rec({ op: 'put', scope: 'tenant', record_key: `k${i}`, body: { i }, expect: 0 })).status).toBe(200);
    const before = await keepCheckpoint('returner', 'returner-before.json');
    const there = await a.admin('POST', '/v1/tenants/returner/move', { to: 'db2' });
    expect(there.status, JSON.stringify(there.body)).toBe(200);
    expect(there.body.audit).toEqual(before);
    // Written to on db2: db1's runner remembers the tenant's tree at the size it left at, smaller than what comes back.
    const w2 = await caller(b as unknown as TestService, 'returner');
    expect((await w2.rec({ op: 'put', scope: 'tenant', record_key: 'k0', body: { i: 10 }, expect: 1 })).status).toBe(200);
    const middle = await keepCheckpoint('returner', 'returner-middle.json');
    expect(middle.size).toBeGreaterThan(before.size);
    const back = await b.admin('POST', '/v1/tenants/returner/move', { to: 'db1' });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toMatchObject({ from: 'db2', to: 'db1', moved: true, audit: middle });
    expect((await a.admin('GET', '/v1/tenants/returner')).body.database).toBe('db1');
    expect(await eventCounts('returner')).toMatchObject({ db2: 0 });
    // The same tree as before either move, then one that grows from it.
    expect((await a.admin('GET', `/v1/tenants/returner/audit/checkpoint?size=${middle.size}`)).body).toMatchObject(middle);
    expect((await a.admin('GET', `/v1/tenants/returner/audit/checkpoint?size=${before.size}`)).body).toMatchObject(before);
    const w3 = await caller(a as unknown as TestService, 'returner');
    const put = await w3.rec({ op: 'put', scope: 'tenant', record_key: 'k1', body: { i: 11 }, expect: 1 });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    for (const [key, i] of [
      ['k0', 10],
      ['k1', 11],
      ['k2', 2],
    ] as const)
      expect((await w3.rec({ op: 'get', scope: 'tenant', record_key: key })).body.record.body).toEqual({ i });
    const after = await keepCheckpoint('returner', 'returner-after.json');
    expect(after.size).toBeGreaterThan(middle.size);
    const verified = await auditVerifies(a, 'returner', 'returner-before.json');
    expect(verified, verified.err).toMatchObject({ code: 0, out: expect.stringContaining(`consistent with the checkpoint of size ${before.size}`) });
  }, 300_000);

  it('finishes a move whose mover stopped after copying (placement not switched) when run again, leaving one whole copy', async () => {
    await newTenant('halted', 'db1');
    const w = await caller(a as unknown as TestService, 'halted');
    expect((await w.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { v: 1 }, expect: 0 })).status).toBe(200);
    const total = (await eventCounts('halted')).db1!;
    // What a mover killed between its copy and its switch leaves: the pause on, a full copy on db3.
    const control = new pg.Pool({ connectionString: deployment.control.url, max: 2 });
    control.on('error', () => undefined);
    const placement = placementStore(control);
    await placement.setMoving('halted', 'db3');
    // Past the placement cache's life (1 s): every instance now routes by the paused placement.
    await sleep(1_100);
    await copyTenant(a.cells.get('db1')!.pool, a.cells.get('db3')!.pool, a.cells.get('db3')!.inline, 'halted');
    expect(await eventCounts('halted')).toEqual({ db1: total, db2: 0, db3: total });
    // Writes pause meanwhile; reads still answer from db1, the tenant as it is.
    expect((await w.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { v: 2 }, expect: 1 })).body.error).toBe('moving');
    expect((await b.admin('GET', '/v1/tenants/halted')).body.database).toBe('db1');

    const again = await b.admin('POST', '/v1/tenants/halted/move', { to: 'db3' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await eventCounts('halted')).toEqual({ db1: 0, db2: 0, db3: total });
    const put = await w.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { v: 2 }, expect: 1 });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.version).toBe(2);
    await control.end();
  }, 300_000);

  it('leaves a tenant whole on its database when the instance moving it is killed (kill -9), and the move run again on another instance completes', async () => {
    await newTenant('killed', 'db1');
    const w = await caller(a as unknown as TestService, 'killed');
    for (let i = 0; i < 5; i++) expect((await w.rec({ op: 'put', scope: 'tenant', record_key: `k${i}`, body: { i }, expect: 0 })).status).toBe(200);
    const total = (await eventCounts('killed')).db1!;
    // A third instance, a process of its own (`custodian start`) on the same databases and keys.
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: deployment.control.url,
      CUSTODIAN_DATABASES: servers.map((s) => `${s.name}=${s.url}`).join(','),
      CUSTODIAN_DATA_DIR: childDir,
      CUSTODIAN_ADMIN_KEY: ADMIN_KEY,
      CUSTODIAN_MASTER_KEY: deployment.masterKey.toString('base64'),
      CUSTODIAN_AUDIT_KEY: deployment.auditKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      LOG_LEVEL: 'warn',
    };
    delete env.KAFKA_BROKERS;
    delete env.ESDB_URL;
    child = spawn(process.execPath, [path.join(root, 'bin/custodian.js'), 'start'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
    const url = `http://127.0.0.1:${port}`;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the third instance exited with ${child.exitCode}`);
      if (
        await fetch(`${url}/healthz`)
          .then((r) => r.ok)
          .catch(() => false)
      )
        break;
      await sleep(200);
    }
    // Its move begins (the pause is in the control database), then the process dies.
    const control = new pg.Pool({ connectionString: deployment.control.url, max: 1 });
    control.on('error', () => undefined);
    const moving = fetch(`${url}/v1/tenants/killed/move`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'db2' }),
    }).catch(() => null);
    for (;;) {
      const { rows } = await control.query('SELECT moving_to FROM custodian_placement WHERE tenant = $1', ['killed']);
      if (rows[0]?.moving_to === 'db2') break;
      await sleep(20);
    }
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    expect(await moving).toBeNull();
    await control.end();

    // The tenant is whole on db1; its writes stay paused until the move is run again.
    expect((await eventCounts('killed')).db1).toBe(total);
    await sleep(1_100);
    expect((await w.rec({ op: 'put', scope: 'tenant', record_key: 'k0', body: { i: 9 }, expect: 1 })).body.error).toBe('moving');
    const again = await b.admin('POST', '/v1/tenants/killed/move', { to: 'db2' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await eventCounts('killed')).toEqual({ db1: 0, db2: total, db3: 0 });
    const put = await w.rec({ op: 'put', scope: 'tenant', record_key: 'k0', body: { i: 9 }, expect: 1 });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.version).toBe(2);
    for (let i = 1; i < 5; i++) expect((await w.rec({ op: 'get', scope: 'tenant', record_key: `k${i}` })).body.record.body).toEqual({ i });
  }, 300_000);

  it('removes the old copy a mover stopped before removing (placement switched) when run again', async () => {
    await newTenant('leftover', 'db2');
    const w = await caller(b as unknown as TestService, 'leftover');
    expect((await w.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { v: 1 }, expect: 0 })).status).toBe(200);
    const total = (await eventCounts('leftover')).db2!;
    const control = new pg.Pool({ connectionString: deployment.control.url, max: 2 });
    control.on('error', () => undefined);
    const placement = placementStore(control);
    await placement.setMoving('leftover', 'db1');
    await copyTenant(a.cells.get('db2')!.pool, a.cells.get('db1')!.pool, a.cells.get('db1')!.inline, 'leftover');
    await placement.switchTo('leftover', 'db1');
    // Switched: the tenant is db1's, writes go on there; the old copy waits to be removed.
    const reader = await caller(a as unknown as TestService, 'leftover');
    let got = await reader.rec({ op: 'get', scope: 'tenant', record_key: 'k' });
    for (let again = 0; again < 3 && got.status === 503; again++) got = await reader.rec({ op: 'get', scope: 'tenant', record_key: 'k' });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.record.body).toEqual({ v: 1 });
    const again = await a.admin('POST', '/v1/tenants/leftover/move', { to: 'db1' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.moved).toBe(false);
    expect((await eventCounts('leftover')).db2).toBe(0);
    expect((await eventCounts('leftover')).db1).toBeGreaterThanOrEqual(total);
    await control.end();
  }, 300_000);

  it('refuses a move to a database that is not a tenant database, or a body that is not {"to": name}, changing nothing', async () => {
    await newTenant('stays', 'db3');
    const bad = await a.admin('POST', '/v1/tenants/stays/move', { to: 'db9' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid', field: 'to' });
    expect((await a.admin('POST', '/v1/tenants/stays/move', { to: 'db1', now: true })).status).toBe(400);
    expect((await a.admin('GET', '/v1/tenants/stays')).body.database).toBe('db3');
    const unauthorised = await fetch(`${a.url}/v1/tenants/stays/move`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"to":"db1"}',
    });
    expect(unauthorised.status).toBe(401);
  }, 60_000);
});
