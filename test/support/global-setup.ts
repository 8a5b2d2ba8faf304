import { execFileSync } from 'node:child_process';
import { startComponents } from './components.ts';
import { ensureClientsVenv } from './clients-venv.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../adapters/embedded-postgres/start.ts';
import { EmbeddedPostgresUnreachable } from '../../adapters/embedded-postgres/reachable.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server for the whole run; each test file makes its own database on it. */
    databaseUrl: string;
    databaseSource: string;
    /** The cluster's data directory when this run started the server itself, else "". */
    databaseDataDir: string;
    /**
     * A second server for the test files that hold a transaction id open on purpose (a blocker
     * row lock, a worker stalled mid-transaction): the readable head of the log is below the
     * oldest running transaction id of the whole cluster, so on a shared server such a blocker
     * stalls every other file's projections, and their answers turn 503. Same URL as
     * `databaseUrl` when the server comes from DATABASE_URL or testcontainers.
     */
    blockingDatabaseUrl: string;
    /** Kafka bootstrap addresses ("" when no broker can be reached) and where they came from. */
    kafkaBrokers: string;
    kafkaSource: string;
    /** An esdb:// connection string ("" when no EventStoreDB can be reached) and where it came from. */
    esdbUrl: string;
    esdbSource: string;
  }
}

const dockerAnswers = () => {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
};

/**
 * One PostgreSQL server per run: DATABASE_URL when set, else testcontainers when a Docker
 * engine answers, else a throwaway embedded server (a real one) deleted afterwards.
 */
export default async function setup(project: TestProject) {
  // The Python client suites' environment: made on the first run, kept after.
  await ensureClientsVenv();
  const docker = dockerAnswers();
  const components = await startComponents(project, docker);
  let database: Awaited<ReturnType<typeof startDatabase>>;
  try {
    database = await startDatabase(project, docker);
  } catch (error) {
    // A broker started for the run must not outlive a run that could not begin.
    await components();
    if (!(error instanceof EmbeddedPostgresUnreachable)) throw error;
    // Something the user can fix: the one line saying what to do, not a stack.
    const line = `custodian tests: ${error.message}`;
    process.stderr.write(`${line}\n`);
    throw Object.assign(new Error(line), { stack: line });
  }
  return async () => {
    await database?.();
    await components();
  };
}

const startDatabase = async (project: TestProject, docker: boolean): Promise<(() => Promise<void>) | undefined> => {
  if (process.env.DATABASE_URL) {
    project.provide('databaseUrl', process.env.DATABASE_URL);
    project.provide('databaseSource', 'DATABASE_URL');
    project.provide('databaseDataDir', '');
    project.provide('blockingDatabaseUrl', process.env.DATABASE_URL);
    return;
  }
  if (docker) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:17').start();
    project.provide('databaseUrl', container.getConnectionUri());
    project.provide('databaseSource', 'testcontainers');
    project.provide('databaseDataDir', '');
    project.provide('blockingDatabaseUrl', container.getConnectionUri());
    return async () => {
      await container.stop();
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'custodian-test-pg-'));
  const blockingDir = mkdtempSync(path.join(tmpdir(), 'custodian-test-pg-blocking-'));
  const [server, blocking] = await Promise.all([
    startEmbeddedPostgres({ dataDir: dir, database: 'custodian_test', persistent: false }),
    startEmbeddedPostgres({ dataDir: blockingDir, database: 'custodian_test', persistent: false }),
  ]);
  project.provide('databaseUrl', server.url);
  project.provide('databaseSource', 'embedded-postgres');
  project.provide('databaseDataDir', path.join(dir, 'pg'));
  project.provide('blockingDatabaseUrl', blocking.url);
  return async () => {
    await Promise.all([server.stop(), blocking.stop()]);
    rmSync(dir, { recursive: true, force: true });
    rmSync(blockingDir, { recursive: true, force: true });
  };
};
