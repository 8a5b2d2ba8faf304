import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.ts';

export const REPO = path.resolve(import.meta.dirname, '../..');

/** Settings a developer's or CI's shell may hold that would make `npm start` anything but a first run. */
const NOT_FIRST_RUN = [
  'DATABASE_URL',
  'ESDB_URL',
  'KAFKA_BROKERS',
  'HOST',
  'CUSTODIAN_ADMIN_KEY',
  'CUSTODIAN_MASTER_KEY',
  'CUSTODIAN_SECRETS_KEY',
  'CUSTODIAN_AUDIT_KEY',
  'CUSTODIAN_TEST_CLOCK',
];

export const firstRunEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env = { ...process.env, ...extra };
  for (const name of NOT_FIRST_RUN) delete env[name];
  return env;
};

export interface NpmStart {
  readonly url: string;
  readonly env: NodeJS.ProcessEnv;
  /** Everything the service wrote to stdout so far. */
  stdout(): string;
  stop(): Promise<void>;
}

/**
 * `npm start` as a user runs it, in a child process of its own (its own process group, so
 * stopping it reaches node under npm), with a fresh data directory and a free port: the
 * embedded PostgreSQL, generated keys and all. Resolves once /healthz answers.
 */
export const npmStart = async (extraEnv: Record<string, string> = {}): Promise<NpmStart> => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'custodian-first-run-'));
  const port = await freePort();
  const env = firstRunEnv({ PORT: String(port), CUSTODIAN_DATA_DIR: dataDir, ...extraEnv });
  const child: ChildProcess = spawn('npm', ['start'], { cwd: REPO, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));

  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (!running) throw new Error(`npm start exited before it listened:\n${out}\n${err}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 250));
  }

  return {
    url,
    env,
    stdout: () => out,
    async stop() {
      if (running) process.kill(-child.pid!, 'SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
