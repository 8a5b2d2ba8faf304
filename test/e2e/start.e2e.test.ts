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

/** The line the service logs once its port is bound (at LOG_LEVEL info). */
const LISTENING = 'custodian is listening';

/**
 * `npm start` as a user runs it: the CLI, no DATABASE_URL, so the embedded server. `listening`
 * settles on the service's own word that it listens, or fails with its output if it exits
 * first: however long a first start (initdb) takes on a busy machine, nothing is timed.
 */
const start = (port: number) => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), CUSTODIAN_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  delete env.DATABASE_URL;
  delete env.CUSTODIAN_ADMIN_KEY;
  const child = spawn(process.execPath, [path.join(root, 'bin/custodian.js'), 'start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listening = new Promise<void>((resolve, reject) => {
    const heard = (d: Buffer) => {
      output += d.toString();
      if (output.includes(LISTENING)) resolve();
    };
    child.stdout!.on('data', heard);
    child.stderr!.on('data', heard);
    child.once('exit', (code) => reject(new Error(`custodian start exited (${code}) before it listened:\n${output}`)));
  });
  // Awaited by the test; a later exit is the test's own concern (stop).
  listening.catch(() => undefined);
  return { child, listening, output: () => output };
};

const healthy = async (url: string) => (await fetch(`${url}/healthz`)).ok;

/** SIGTERM, then its exit code once its output is all read ('close' comes after stdout and stderr end). */
const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('close', (code) => resolve(code));
    child.kill('SIGTERM');
  });

let running: ChildProcess | null = null;
afterAll(async () => {
  if (running && running.exitCode === null) await stop(running);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start on a fresh data directory', () => {
  it('answers /healthz once it says it listens, keeps its data across a restart, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;

    const first = start(port);
    running = first.child;
    await first.listening;
    expect(await healthy(url)).toBe(true);
    const adminKey = readFileSync(path.join(dataDir, 'secrets/admin-key'), 'utf8').trim();
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
    // Printed once, after the line the wait above heard: read once the output has ended.
    expect(first.output()).toContain(adminKey);
    expect(existsSync(path.join(dataDir, 'pg/postmaster.pid'))).toBe(false);

    const second = start(port);
    running = second.child;
    await second.listening;
    expect(await healthy(url)).toBe(true);
    const read = await fetch(`${url}/v1/tenants/kept`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { tenant: { id: string } }).tenant.id).toBe('kept');
    expect(await stop(second.child)).toBe(0);
    expect(second.output()).not.toContain(adminKey);
  }, 300_000);
});
