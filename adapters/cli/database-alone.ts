import path from 'node:path';
import { cliLogger } from '../logging.ts';
import { EmbeddedPostgresUnreachable } from '../embedded-postgres/reachable.ts';
import { secretsDir } from '../keys/secrets.ts';
import { dataDirOf, openDatabase } from './database.ts';
import { CliFailure } from './failure.ts';
import { stopOnSignal } from './signals.ts';

/**
 * `custodian database`: the data directory's embedded PostgreSQL alone, with no service on it,
 * so pg_dump, pg_restore and psql can reach it (a restore goes into a new data directory's
 * empty database before the service's first start there). It prints how to connect and runs
 * until SIGINT, SIGTERM or SIGHUP; when a `custodian start` already runs that server, it says
 * how to connect to that one and exits.
 */
export const serveDatabase = async (o: { dataDir?: string }) => {
  if (process.env.DATABASE_URL)
    throw new CliFailure('DATABASE_URL is set, and that PostgreSQL is not run by custodian: unset it to run the embedded server of the data directory');
  const logger = cliLogger();
  const dataDir = dataDirOf(o.dataDir);
  const db = await openDatabase(dataDir, (line) => logger.debug({ postgres: line })).catch((error: unknown) => {
    throw error instanceof EmbeddedPostgresUnreachable ? new CliFailure(error.message) : error;
  });
  const port = new URL(db.url).port;
  const passwordFile = path.join(secretsDir(dataDir), 'pg-password');
  const connection = `host 127.0.0.1, port ${port}, database custodian, user postgres, password in ${passwordFile}`;
  if (db.borrowed) {
    process.stdout.write(`The embedded PostgreSQL of ${dataDir} is already running, for a custodian start there: ${connection}\n`);
    return;
  }
  process.stdout.write(`The embedded PostgreSQL of ${dataDir} is running alone: ${connection}. Stop it with Ctrl-C (SIGINT or SIGTERM).\n`);
  stopOnSignal(logger, () => db.release());
};
