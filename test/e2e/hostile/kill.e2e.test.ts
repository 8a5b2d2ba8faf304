import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../../support/database.ts';

/**
 * Issue 11: kill -9 under 8 concurrent writers loses no acknowledged put. The service runs as
 * its own process (`custodian start`, as a user runs it) on a database that outlives it; the
 * process is killed with SIGKILL while every writer has a put in flight, started again on the
 * same database and data directory, and every put that was answered 200 is read back: the
 * version it was answered with, holding the body that was sent.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const ADMIN_KEY = 'kill-test-admin-key-0123456789';
const WRITERS = 8;
/** Acknowledged puts after which the service is killed, with every writer still writing. */
const KILL_AFTER = 400;
const KEYS_PER_WRITER = 5;

const dataDir = mkdtempSync(path.join(tmpdir(), 'custodian-kill-'));
let db: Awaited<ReturnType<typeof freshDatabase>> | null = null;
let child: ChildProcess | null = null;

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

const start = (port: number, databaseUrl: string) => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    CUSTODIAN_DATA_DIR: dataDir,
    CUSTODIAN_ADMIN_KEY: ADMIN_KEY,
    LOG_LEVEL: 'warn',
  };
  // The service alone: no relay, no other log.
  delete env.KAFKA_BROKERS;
  delete env.ESDB_URL;
  const c = spawn(process.execPath, [path.join(root, 'bin/custodian.js'), 'start'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  child = c;
  return c;
};

const healthy = async (url: string, c: ChildProcess) => {
  for (;;) {
    if (c.exitCode !== null) throw new Error(`the service exited with ${c.exitCode} before it answered`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
};

const call = async (url: string, method: string, p: string, body: unknown, auth = ADMIN_KEY) => {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

/** A fresh call of `job`: its ticket, good for 64 records requests. */
const mint = async (url: string, job: string): Promise<string> => {
  const minted = await call(url, 'POST', `/v1/tenants/acme/jobs/${job}/calls`, { function: 'save' });
  if (minted.status !== 201) throw new Error(`mint: ${JSON.stringify(minted.body)}`);
  return minted.body._meta['oz0/records'].ticket;
};

interface Acked {
  readonly key: string;
  readonly version: number;
  readonly body: { writer: number; n: number; text: string };
}

describe('kill -9 under concurrent writers', () => {
  it('loses none of the puts it acknowledged', async () => {
    db = await freshDatabase();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const first = start(port, db.url);
    await healthy(url, first);
    expect((await call(url, 'POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
    expect((await call(url, 'POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);

    const acked: Acked[] = [];
    let inFlight = 0;
    let killed = false;
    const killedAt = { acked: 0, inFlight: 0 };
    const exited = new Promise<NodeJS.Signals | null>((resolve) => first.once('exit', (_code, signal) => resolve(signal)));
    const kill = () => {
      if (killed) return;
      killed = true;
      killedAt.acked = acked.length;
      killedAt.inFlight = inFlight;
      first.kill('SIGKILL');
    };

    const writer = async (w: number) => {
      const job = `writer-${w}`;
      const started = await call(url, 'POST', '/v1/tenants/acme/jobs', { id: job, agent: 'scribe', plugin: 'notes', subject: 's', input: `writer ${w}` });
      expect(started.status).toBe(201);
      // Each key's next expected version; a put cut off by the kill leaves its key unknown, and the writer stops.
      const versions = new Array<number>(KEYS_PER_WRITER).fill(0);
      let ticket = '';
      for (let n = 0; !killed; n++) {
        if (n % 60 === 0) {
          try {
            ticket = await mint(url, job);
          } catch {
            return;
          }
        }
        const k = n % KEYS_PER_WRITER;
        const key = `w${w}/k${k}`;
        const body = { writer: w, n, text: `writer ${w} put ${n}` };
        inFlight++;
        let answer: { status: number; body: any };
        try {
          answer = await call(url, 'POST', '/v1/records', { op: 'put', scope: 'tenant', record_key: key, body, expect: versions[k] }, ticket);
        } catch {
          return; // the connection died with the process: not acknowledged
        } finally {
          inFlight--;
        }
        if (answer.status !== 200) throw new Error(`put ${key}: ${answer.status} ${JSON.stringify(answer.body)}`);
        versions[k] = answer.body.version;
        acked.push({ key, version: answer.body.version, body });
        if (acked.length >= KILL_AFTER) kill();
      }
    };

    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    expect(killed).toBe(true);
    expect(await exited).toBe('SIGKILL');
    // Answers already on their way when the process died still count as acknowledged.
    expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER);

    const second = start(port, db.url);
    await healthy(url, second);
    // Each writer's job reads its own puts back, with a fresh call every 60 requests.
    let missing = 0;
    const tickets = new Map<string, { ticket: string; used: number }>();
    for (const a of acked) {
      const job = `writer-${a.body.writer}`;
      let t = tickets.get(job);
      if (!t || t.used === 60) tickets.set(job, (t = { ticket: await mint(url, job), used: 0 }));
      t.used++;
      const got = await call(url, 'POST', '/v1/records', { op: 'get', scope: 'tenant', record_key: a.key, version: a.version }, t.ticket);
      if (got.status !== 200 || got.body.record?.version !== a.version || JSON.stringify(got.body.record?.body) !== JSON.stringify(a.body)) {
        if (missing === 0) console.log(`first lost put: ${JSON.stringify(a)} answered ${JSON.stringify(got)}`);
        missing++;
      }
    }
    console.log(
      `kill -9: ${WRITERS} writers, ${acked.length} puts acknowledged (${killedAt.acked} when SIGKILL was sent, ${killedAt.inFlight} in flight then), ` +
        `${acked.length - missing} read back after restart, ${missing} lost`,
    );
    expect(missing).toBe(0);
  }, 600_000);
});
