import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../embedded-postgres/start.ts';
import { secretsDir } from '../keys/secrets.ts';
import type { EventStore } from '../../domain/ports/event-store.ts';
import { esdbEventStore } from '../eventstore/esdb.ts';
import { postgresEventStore } from '../eventstore/postgres.ts';
import { authenticatedEventStore } from '../eventstore/authenticated.ts';
import { auditLinesStore } from '../eventstore/audit-lines.ts';
import { eventMacKeys } from '../eventstore/event-macs.ts';
import { authenticateLegacyEvents } from '../eventstore/postgres-legacy-macs.ts';
import { loadMasterKey } from '../keys/master.ts';
import { parseMasterKey } from '../keys/secrets.ts';

export interface Database {
  readonly url: string;
  /** Stops the embedded server if this process started it. */
  release(): Promise<void>;
  readonly embedded: boolean;
  /** The embedded server another process (a `custodian start` on this data directory) runs: it stops with that process. */
  readonly borrowed: boolean;
}

export { dataDirOf } from './data-dir.ts';

/** The embedded server a running `custodian start` already serves from this data directory, if any. */
const runningEmbedded = async (dataDir: string): Promise<string | null> => {
  const portFile = path.join(dataDir, 'pg.port');
  const passwordFile = path.join(secretsDir(dataDir), 'pg-password');
  if (!existsSync(portFile) || !existsSync(passwordFile)) return null;
  const port = Number(readFileSync(portFile, 'utf8').trim());
  const password = readFileSync(passwordFile, 'utf8').trim();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/custodian`;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    return null;
  }
};

/**
 * DATABASE_URL when set; otherwise the embedded server under the data directory, reusing
 * one that is already running there (two servers cannot share a cluster directory).
 */
export const openDatabase = async (dataDir: string, log?: (line: string) => void): Promise<Database> => {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, embedded: false, borrowed: false, release: async () => undefined };
  const running = await runningEmbedded(dataDir);
  if (running) return { url: running, embedded: true, borrowed: true, release: async () => undefined };
  const server = await startEmbeddedPostgres({ dataDir, ...(log ? { log } : {}) });
  return { url: server.url, embedded: true, borrowed: false, release: () => server.stop() };
};

/** The log: EventStoreDB when ESDB_URL is set, else PostgreSQL on `pool` (read models stay there either way). */
export const openEventStore = async (pool: pg.Pool): Promise<EventStore> =>
  process.env.ESDB_URL ? esdbEventStore(process.env.ESDB_URL) : postgresEventStore(pool);

/** The log as the service reads it: every event checked against its MAC (what rebuilds build from). */
export const openAuthenticatedEventStore = async (pool: pg.Pool, dataDir: string): Promise<EventStore> => {
  const secret = process.env.CUSTODIAN_SECRETS_KEY ? parseMasterKey(process.env.CUSTODIAN_SECRETS_KEY) : loadMasterKey(dataDir);
  const keys = eventMacKeys(secret);
  const log = await openEventStore(pool);
  // A log from before the authenticated store is MACed once, as the service's first start would.
  if (log.name === 'postgres') await authenticateLegacyEvents(pool, keys);
  // What the CLI appends (an import, a removal) writes its audit lines as the service does.
  return auditLinesStore(authenticatedEventStore(log, keys));
};
