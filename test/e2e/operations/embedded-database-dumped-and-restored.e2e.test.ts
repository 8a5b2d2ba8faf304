import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { firstRunEnv, REPO } from '../../support/npm-start.ts';
import { freePort } from '../../support/free-port.ts';

/**
 * The operators' guide's backup and restore of the embedded database, as written there: pg_dump
 * of the running service's database (127.0.0.1, the port in pg.port, database custodian, user
 * postgres, the password in secrets/pg-password); then a new data directory holding the
 * backup's secrets, its embedded server run alone by `custodian database`, pg_restore into it,
 * and `custodian start` there serving what was dumped.
 */
const work = mkdtempSync(path.join(tmpdir(), 'custodian-restore-'));
// Run as root, the embedded server runs as `postgres`, which must pass through to the data directories.
chmodSync(work, 0o711);
const pgDump = (() => {
  try {
    return execFileSync('pg_dump', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
})();
if (!pgDump) console.log('embedded database backup: pg_dump is not installed here (a PostgreSQL 15 or later client); the test skips');

const children: ChildProcess[] = [];

/** A CLI command in a child process; resolves once `ready` holds for what it printed. */
const cli = async (args: string[], env: NodeJS.ProcessEnv, ready: (out: string) => Promise<boolean> | boolean) => {
  const child = spawn(process.execPath, [path.join(REPO, 'bin/custodian.js'), ...args], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  while (!(await ready(out))) {
    if (child.exitCode !== null) throw new Error(`custodian ${args.join(' ')} exited:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
};

const start = async (dataDir: string) => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = firstRunEnv({ PORT: String(port), CUSTODIAN_DATA_DIR: dataDir });
  const service = await cli(['start'], env, () =>
    fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    ),
  );
  const key = readFileSync(path.join(dataDir, 'secrets/admin-key'), 'utf8').trim();
  const admin = (method: string, route: string, body?: unknown) =>
    fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (r) => ({ status: r.status, text: await r.text() }));
  return { admin, stop: service.stop };
};

/** The connection the guide gives for the embedded server of a data directory, as libpq's environment. */
const connection = (dataDir: string): NodeJS.ProcessEnv => ({
  ...process.env,
  PGHOST: '127.0.0.1',
  PGPORT: readFileSync(path.join(dataDir, 'pg.port'), 'utf8').trim(),
  PGUSER: 'postgres',
  PGDATABASE: 'custodian',
  PGPASSWORD: readFileSync(path.join(dataDir, 'secrets/pg-password'), 'utf8').trim(),
});

/**
 * Until every audit line stored for `tenant` is in its tree: the replay serves only those, and
 * the integrator runs after the answers (a line integrated between the read and the dump would
 * be served after the restore, not before it).
 */
const integrated = async (dataDir: string, tenant: string) => {
  const env = connection(dataDir);
  const client = new pg.Client({ host: env.PGHOST, port: Number(env.PGPORT), user: env.PGUSER, password: env.PGPASSWORD, database: env.PGDATABASE });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ done: boolean }>(
        'SELECT (SELECT count(*) FROM custodian_audit_lines WHERE tenant = $1) = coalesce((SELECT size FROM rm_audit_heads WHERE tenant = $1), 0) AS done',
        [tenant],
      );
      if (rows[0]!.done) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await client.end();
  }
};

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!pgDump)('the embedded database, dumped while the service runs and restored into a new data directory', () => {
  it('serves the same tenant and the same audit stream after the restore', async () => {
    const data = path.join(work, 'data');
    const first = await start(data);
    expect((await first.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
    expect((await first.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
    await integrated(data, 'acme');
    const audit = (await first.admin('GET', '/v1/tenants/acme/audit')).text;
    const dump = path.join(work, 'custodian.dump');
    execFileSync('pg_dump', ['--format=custom', `--file=${dump}`], { env: connection(data) });
    expect(await first.stop()).toBe(0);

    const restored = path.join(work, 'restored');
    mkdirSync(restored);
    cpSync(path.join(data, 'secrets'), path.join(restored, 'secrets'), { recursive: true });
    const database = await cli(['database', '--data-dir', restored], firstRunEnv({}), (out) => out.includes('running alone'));
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=custodian`, dump], { env: connection(restored) });
    expect(await database.stop()).toBe(0);

    const second = await start(restored);
    expect((await second.admin('GET', '/v1/tenants/acme')).status).toBe(200);
    expect((await second.admin('GET', '/v1/tenants/acme/audit')).text).toBe(audit);
    expect(await second.stop()).toBe(0);
  }, 300_000);
});
