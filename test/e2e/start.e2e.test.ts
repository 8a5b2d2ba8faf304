import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'custodian-start-'));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** `npm start` as a user runs it: the CLI, no DATABASE_URL, so the embedded server. */
const start = (port: number) => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), CUSTODIAN_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.CUSTODIAN_ADMIN_KEY;
  const child = spawn(process.execPath, [path.join(root, 'bin/custodian.js'), 'start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
};

const healthyWithin = async (url: string, ms: number) => {
  const started = Date.now();
  while (Date.now() - started < ms) {
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return Date.now() - started;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no healthy answer within ${ms} ms`);
};

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

let running: ChildProcess | null = null;
afterAll(async () => {
  if (running && running.exitCode === null) await stop(running);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start on a fresh data directory', () => {
  it('answers /healthz within 30 s, keeps its data across a restart, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;

    const first = start(port);
    running = first.child;
    await healthyWithin(url, 30_000);
    const adminKey = readFileSync(path.join(dataDir, 'secrets/admin-key'), 'utf8').trim();
    expect(first.output()).toContain(adminKey);
    expect(statSync(path.join(dataDir, 'secrets/admin-key')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'secrets/master-key')).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(path.join(dataDir, 'secrets/master-key'), 'utf8').trim(), 'base64')).toHaveLength(32);
    expect(existsSync(path.join(dataDir, 'pg/PG_VERSION'))).toBe(true);

    const created = await fetch(`${url}/v1/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'kept' }),
    });
    expect(created.status).toBe(201);

    expect(await stop(first.child)).toBe(0);
    expect(existsSync(path.join(dataDir, 'pg/postmaster.pid'))).toBe(false);

    const second = start(port);
    running = second.child;
    await healthyWithin(url, 30_000);
    expect(second.output()).not.toContain(adminKey);
    const read = await fetch(`${url}/v1/tenants/kept`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { tenant: { id: string } }).tenant.id).toBe('kept');
    expect(await stop(second.child)).toBe(0);
  });
});
