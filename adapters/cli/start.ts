import { cliLogger } from '../logging.ts';
import { startService } from '../service.ts';
import { loadOrCreateSecret, parseMasterKey, randomKey } from '../keys/secrets.ts';
import { loadMasterKey } from '../keys/master.ts';
import { InvalidAuditConfig, loadAuditKey, logNameOf } from '../keys/audit-key.ts';
import { witnessIntervalOf, witnessQuorumOf, witnessesOf } from '../keys/witness-keys.ts';
import { dataDirOf, openDatabase } from './database.ts';
import { kafkaSettingsFromEnv } from '../bus/kafka/client.ts';
import { esdbEventStore } from '../eventstore/esdb.ts';
import { stopOnSignal } from './signals.ts';
import { EmbeddedPostgresUnreachable } from '../embedded-postgres/reachable.ts';
import { parseDatabases } from '../shards/databases-env.ts';

/** A database that cannot start for a reason the user can fix: one line saying what to do, exit code 1. */
const exitIfUnreachable = (error: unknown): never => {
  if (error instanceof EmbeddedPostgresUnreachable) {
    process.stderr.write(`custodian: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
};

export interface StartOptions {
  readonly port?: string;
  readonly dataDir?: string;
}

/** `custodian start`: the service on 127.0.0.1, on the embedded server unless DATABASE_URL says otherwise. */
export const start = async (opts: StartOptions) => {
  const logger = cliLogger();
  const dataDir = dataDirOf(opts.dataDir);
  const port = Number(opts.port ?? process.env.PORT ?? 41873);

  const admin = process.env.CUSTODIAN_ADMIN_KEY
    ? { value: process.env.CUSTODIAN_ADMIN_KEY, created: false }
    : loadOrCreateSecret(dataDir, 'admin-key', randomKey(32));
  const masterKey = loadMasterKey(dataDir);
  const auditKey = loadAuditKey(dataDir);
  // The log's name and its witnesses are configuration: a bad one is one line and exit code 2.
  let witnesses, witnessQuorum, witnessIntervalMs;
  try {
    logNameOf(process.env.CUSTODIAN_LOG_ORIGIN, auditKey);
    witnesses = witnessesOf(process.env.CUSTODIAN_WITNESSES);
    witnessQuorum = witnessQuorumOf(process.env.CUSTODIAN_WITNESS_QUORUM, witnesses);
    witnessIntervalMs = witnessIntervalOf(process.env.CUSTODIAN_WITNESS_INTERVAL_MS);
  } catch (error) {
    if (!(error instanceof InvalidAuditConfig)) throw error;
    process.stderr.write(`custodian: ${error.message}\n`);
    process.exit(2);
  }
  // CUSTODIAN_DATABASES places tenants on several databases; the data directory's (or DATABASE_URL) holds the placement.
  let databases;
  try {
    databases = parseDatabases(process.env.CUSTODIAN_DATABASES);
  } catch (error) {
    process.stderr.write(`custodian: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const poolMax = Number(process.env.CUSTODIAN_DB_POOL_MAX ?? 20);
  if (!Number.isInteger(poolMax) || poolMax < 1) {
    process.stderr.write('custodian: CUSTODIAN_DB_POOL_MAX must be a whole number of connections, at least 1\n');
    process.exit(2);
  }
  // Set when management runs apart from the edges; a single server derives from the master key.
  const secretsKey = process.env.CUSTODIAN_SECRETS_KEY ? parseMasterKey(process.env.CUSTODIAN_SECRETS_KEY) : undefined;

  const kafka = kafkaSettingsFromEnv();
  const db = await openDatabase(dataDir, (line) => logger.debug({ postgres: line })).catch(exitIfUnreachable);
  if (db.borrowed)
    logger.warn(
      { data_dir: dataDir },
      'the embedded PostgreSQL of this data directory is already running, started by another custodian start: this one uses it, and answers 503 unavailable once that one stops',
    );
  // ESDB_URL moves the log to EventStoreDB; read models, keys and checkpoints stay in PostgreSQL.
  const eventStore = process.env.ESDB_URL ? await esdbEventStore(process.env.ESDB_URL) : undefined;
  const service = await startService({
    ...(eventStore ? { eventStore } : {}),
    ...(kafka ? { kafka } : {}),
    databaseUrl: db.url,
    adminKey: admin.value,
    masterKey,
    auditKey,
    ...(process.env.CUSTODIAN_LOG_ORIGIN ? { logOrigin: process.env.CUSTODIAN_LOG_ORIGIN } : {}),
    witnesses,
    witnessQuorum,
    witnessIntervalMs,
    ...(databases.length > 0 ? { databases, poolMax } : {}),
    retentionIntervalMs: Number(process.env.CUSTODIAN_RETENTION_INTERVAL_MS ?? 10 * 60_000),
    ...(secretsKey ? { secretsKey } : {}),
    port,
    // 127.0.0.1 unless HOST says otherwise (a container publishes its port on 0.0.0.0).
    host: process.env.HOST ?? '127.0.0.1',
    testClock: process.env.CUSTODIAN_TEST_CLOCK === '1',
    logger,
  });
  logger.info(
    {
      url: service.url,
      embedded_postgres: db.embedded,
      data_dir: dataDir,
      event_store: service.store.name,
      kafka_topic: kafka?.topic ?? null,
      databases: databases.map((d) => d.name),
    },
    'custodian is listening',
  );
  if (admin.created) {
    process.stdout.write(`\nCustodian is listening on ${service.url}\nAdmin key (printed once, kept in ${dataDir}/secrets/admin-key):\n  ${admin.value}\n\n`);
  }

  // The server stops first, then the projections and the pool, and PostgreSQL last.
  stopOnSignal(logger, async () => {
    await service.close();
    await db.release();
  });
};
