import type { KeyObject } from 'node:crypto';
import { revocationCommands } from '../commands/revocations.ts';
import { complianceCommands } from '../commands/compliance.ts';
import { auditQueries, auditSize } from '../queries/audit.ts';
import { tenantIds } from '../queries/tenants.ts';
import { chainVerifies } from '../domain/envelopes/block.ts';
import { checkpointSigner, logNameOf, publicPem, receiptSigner } from './keys/audit-key.ts';
import { witnessCommands } from '../commands/audit-witnesses.ts';
import { receiptLogger } from '../commands/receipt-log.ts';
import { vkeyOf } from '../domain/audit/note.ts';
import type { Witness } from '../domain/audit/witness-protocol.ts';
import { registerWitnessMetrics } from './metrics/witness-metrics.ts';
import { startWitnessSubmitter } from './witness/submitter.ts';
import type pg from 'pg';
import type { Logger } from 'pino';
import { jobCommands } from '../commands/jobs.ts';
import { startupCommands } from '../commands/startup.ts';
import { fileCommands } from '../commands/files.ts';
import { fileRetention } from '../commands/file-retention.ts';
import { resultCommands } from '../commands/results.ts';
import { postgresBlobStore } from './blobs/postgres.ts';
import { tenantCommands } from '../commands/tenants.ts';
import { recordCommands } from '../commands/records.ts';
import { readAudit } from '../commands/read-audit.ts';
import { recordsService } from '../commands/records-service.ts';
import { recordQueries } from '../queries/records.ts';
import { admitTicket } from '../queries/admission.ts';
import { postgresRequestCounter } from './postgres/call-requests.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { ReadModelStore } from '../domain/ports/read-model.ts';
import { allProjections } from '../projections/all.ts';
import { createProjectionRunner, type ProjectionRunner } from '../projections/runner.ts';
import { systemClock, testClock, type TestClock } from './clock/system.ts';
import { postgresEventStore } from './eventstore/postgres.ts';
import { authenticatedEventStore } from './eventstore/authenticated.ts';
import { auditLinesStore } from './eventstore/audit-lines.ts';
import { eventMacKeys } from './eventstore/event-macs.ts';
import { authenticateLegacyEvents } from './eventstore/postgres-legacy-macs.ts';
import { inlineProjections } from './eventstore/inline-projections.ts';
import type { InlineProjections } from './eventstore/inline-projections.ts';
import { instrumentedEventStore } from './eventstore/instrumented.ts';
import { createMetrics, type CustodianMetrics } from './metrics/registry.ts';
import { logFence } from '../queries/fence.ts';
import { buildServer, type CustodianServer } from './http/server.ts';
import { createPool } from './postgres/pool.ts';
import { applySchema } from './postgres/schema.ts';
import { postgresSnapshots } from './postgres/snapshots.ts';
import { tenantSnapshots } from '../queries/tenant-snapshots.ts';
import { snapshotWritesSettled } from '../queries/snapshot-write.ts';
import { postgresKeystore } from './keys/keystore.ts';
import { envelopeMacs } from './keys/envelope-keys.ts';
import { postgresReadModelStore } from './postgres/read-model-store.ts';
import type { KafkaSettings } from './bus/kafka/client.ts';
import { startKafkaRelay } from './bus/kafka/relay.ts';
import { collectionsService } from '../commands/collections.ts';
import { agentKeyCommands } from '../commands/collections-keys.ts';
import { auditorKeyCommands } from '../commands/auditor-keys.ts';
import type { Relay } from './bus/relay.ts';

export interface CellOptions {
  readonly databaseUrl: string;
  /** Connections this cell's pool may hold (default 20). */
  readonly poolMax?: number;
  /** How long a connect may take before it fails as unavailable (default: no limit, as node-postgres). */
  readonly connectTimeoutMs?: number;
  /** The database's name under CUSTODIAN_DATABASES, set as the `database` label of every metric. */
  readonly databaseName?: string;
  /** Where callers reach this instance (known once it listens). */
  readonly publicUrl: () => string;
  readonly adminKey: string;
  readonly masterKey: Buffer;
  /** The cluster secrets key for envelope MACs; dev mode (absent) derives them from the master key. */
  readonly secretsKey?: Buffer;
  /** The Ed25519 audit key that signs receipts and checkpoints. */
  readonly auditKey: KeyObject;
  /** CUSTODIAN_LOG_ORIGIN: the deployment's log name, before `/<tenant>` in every origin; absent: derived from the audit key. */
  readonly logOrigin?: string;
  /** The witnesses whose cosignatures the checkpoints take (CUSTODIAN_WITNESSES): keys, and the URL of each the checkpoints are submitted to. */
  readonly witnesses?: readonly Witness[];
  /** CUSTODIAN_WITNESS_QUORUM: how many must cosign a checkpoint for it to be served as witnessed (default: every witness with a URL). */
  readonly witnessQuorum?: number;
  /** CUSTODIAN_WITNESS_INTERVAL_MS: the most often a tenant's checkpoint is submitted to one witness (default 1000). */
  readonly witnessIntervalMs?: number;
  /** How often retention runs for every tenant; 0 or absent: only on POST …/retention/run. */
  readonly retentionIntervalMs?: number;
  readonly testClock?: boolean;
  readonly logger?: Logger;
  /** Defaults to PostgreSQL in the same database as the read models. */
  readonly eventStore?: EventStore;
  /** When set, a relay publishes every committed event to this Kafka topic (SPEC §10). */
  readonly kafka?: KafkaSettings;
}

export interface Cell {
  /** The routes over this cell's state; ready, not listening (a router or the service listens). */
  readonly app: CustodianServer;
  readonly pool: pg.Pool;
  readonly db: ReadModelStore;
  readonly store: EventStore;
  readonly runner: ProjectionRunner;
  readonly clock: Clock;
  readonly relay: Relay | null;
  readonly metrics: CustodianMetrics;
  /** The models written in an append's own transaction: a tenant copied in by a move writes them too. */
  readonly inline: InlineProjections;
  /** The ids of the tenants whose state this cell holds. */
  tenants(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * One database's share of the service: its pool, event store and group committer, keystore,
 * snapshots, projection runner and read models, and the HTTP routes over them (not listening).
 * The single-database service is one cell on the control database; with CUSTODIAN_DATABASES
 * there is one per tenant database, and a router picks the cell by tenant.
 */
export const buildCell = async (o: CellOptions): Promise<Cell> => {
  const pool = createPool(o.databaseUrl, o.poolMax ?? 20, o.connectTimeoutMs);
  // The schema first, once, before any adapter touches the database (none migrates on its own).
  await applySchema(pool);
  const db = postgresReadModelStore(pool);
  const keystore = await postgresKeystore(pool, o.masterKey);
  const projections = allProjections({ sealer: keystore });
  // On PostgreSQL the models that say they are inline (the ones a put's answer promises: the
  // list index, versions, request keys, the dedupe filter of a list, renewals) are written in
  // the append's own transaction, so a put answers without waiting for the runner; a store that
  // cannot share a transaction with them (memory, EventStoreDB) leaves them to the runner.
  const inline = o.eventStore ? [] : projections.filter((p) => p.inline);
  const inlineModels = inlineProjections(inline);
  const pgLog = o.eventStore ? null : await postgresEventStore(pool, { inline: inlineModels });
  const log = o.eventStore ?? pgLog!;
  // Every event is MACed on append and checked on every read (adapters/eventstore/authenticated.ts).
  const eventKeys = eventMacKeys(o.secretsKey ?? o.masterKey);
  if (log.name === 'postgres') await authenticateLegacyEvents(pool, eventKeys);
  // Counted and timed outside the MAC layer: what /metrics shows is what was appended.
  const metrics = createMetrics();
  if (o.databaseName !== undefined) metrics.registry.setDefaultLabels({ database: o.databaseName });
  // Each unit's audit lines are built once, before it commits, and written with its events.
  const store = instrumentedEventStore(auditLinesStore(authenticatedEventStore(log, eventKeys)), metrics);
  const asyncProjections = projections.filter((p) => !inline.includes(p));
  const macs = envelopeMacs(o.secretsKey ?? o.masterKey);
  const clock: Clock & Partial<TestClock> = o.testClock ? testClock() : systemClock;
  const runner = createProjectionRunner(store, db, asyncProjections, {
    lagging: ['audit'],
    // No put waits on these models (the records models are inline, admin answers use waitFor,
    // which cuts the rest short): under load a cycle takes ~20 ms of events at once.
    coalesceMs: Number(process.env.CUSTODIAN_RUNNER_COALESCE_MS ?? 20),
    onError: (projection, error) => o.logger?.error({ err: error, projection }, 'projection failed'),
  });
  runner.start();
  // With several databases each cell relays its own log, its messages naming the database.
  const relay = o.kafka ? await startKafkaRelay(store, pool, o.kafka, o.logger, o.databaseName) : null;
  const relayHealth = relay && o.kafka ? { topic: o.kafka.topic, position: () => relay.position() } : null;
  // Snapshots beside a PostgreSQL log only: they name streams and revisions of that log.
  const snapshots = inline.length > 0 ? await postgresSnapshots(pool) : null;
  // A tenant not folded here starts from its MACed snapshot (tenant, revocation and compliance commands).
  const tenantSnaps = snapshots ? tenantSnapshots(snapshots, macs) : undefined;
  const records = recordCommands({
    store,
    db,
    sealer: keystore,
    clock,
    retire: (...record) => compliance.retire(...record),
    ...(snapshots ? { snapshots, snapshotMac: macs } : {}),
    // Only the group committer writes a put's rows with its append; other stores keep the key written first.
    keysWithAppend: pgLog !== null,
    onError: (error) => o.logger?.error({ err: error }, 'scope snapshot failed'),
  });
  const blobs = await postgresBlobStore(pool, keystore);
  const checkpoints = checkpointSigner(o.auditKey, logNameOf(o.logOrigin, o.auditKey));
  const audit = auditQueries(db, checkpoints);
  const configuredWitnesses = o.witnesses ?? [];
  const submitted = configuredWitnesses.filter((w): w is Witness & { url: string } => w.url !== null);
  const witnesses = witnessCommands({
    store,
    db,
    audit,
    witnesses: configuredWitnesses,
    quorum: o.witnessQuorum ?? submitted.length,
    now: () => clock.now(),
  });
  // Checkpoints pushed to each witness with a URL (c2sp.org/tlog-witness), beside the service: no write waits on it.
  const submitter =
    submitted.length > 0
      ? startWitnessSubmitter({
          witnesses: submitted,
          intervalMs: o.witnessIntervalMs ?? 1000,
          tenants: () => tenantIds(db),
          logSize: (tenant) => auditSize(db, tenant),
          checkpoint: (tenant, size) => audit.checkpoint(tenant, size),
          consistency: async (tenant, from, to) => (await audit.consistency(tenant, from, to)).proof,
          keep: (tenant, cp, witness, lines) => witnesses.keepAnswered(tenant, cp, witness, lines),
          metrics: registerWitnessMetrics(
            metrics,
            submitted.map((w) => w.key.name),
          ),
          now: () => Date.now(),
          ...(o.logger ? { logger: o.logger } : {}),
        })
      : null;
  const prove = receiptLogger({ db, audit, witnesses });
  const compliance = complianceCommands({
    store,
    db,
    keystore,
    clock,
    receipts: receiptSigner(o.auditKey),
    settle: (p) => runner.waitFor(p),
    prove,
    records,
    files: fileRetention({ store, blobs, keystore, clock }),
    ...(tenantSnaps ? { tenantSnapshots: tenantSnaps } : {}),
  });
  // Retention runs on the service clock, on an interval, for every tenant.
  const retentionTimer =
    (o.retentionIntervalMs ?? 0) > 0
      ? setInterval(() => {
          void (async () => {
            for (const t of await tenantIds(db)) await compliance.retention(t);
          })().catch((error) => o.logger?.error({ err: error }, 'retention run failed'));
        }, o.retentionIntervalMs)
      : null;
  // Job states for a file read's label join and a result's threshold: the job commands' own (made below).
  const files = fileCommands({ store, clock, blobs, jobs: (tenant, job) => jobs.folded(tenant, job) });
  const jobs = jobCommands(
    store,
    clock,
    macs,
    (p) => runner.waitFor(p),
    files.holds,
    files,
    snapshots ?? undefined,
    (error) => o.logger?.error({ err: error }, 'job snapshot failed'),
  );
  const app = await buildServer(
    {
      store,
      db,
      runner,
      tenants: tenantCommands(store, clock, tenantSnaps, (error) => o.logger?.error({ err: error }, 'tenant snapshot failed')),
      jobs,
      startup: startupCommands(jobs, clock, macs),
      files,
      results: resultCommands(files, store, (tenant, job) => jobs.folded(tenant, job)),
      adminKey: o.adminKey,
      testClock: o.testClock ? (clock as TestClock) : null,
      relay: relayHealth,
      publicUrl: o.publicUrl,
      records: {
        service: recordsService({
          db,
          counter: await postgresRequestCounter(pool),
          // Counted in a statement of its own; on PostgreSQL it also reads the log's heads its cached admission is checked against.
          admission: (ticket, blockRevisions) => admitTicket(db, ticket, blockRevisions, pgLog !== null),
          records,
          queries: recordQueries({ db, sealer: keystore, now: () => clock.now() }),
          audit: readAudit(store, clock),
          fence: logFence({
            store,
            chainVerifies: (tenant, chain) => chainVerifies(chain, macs(tenant)),
            now: () => clock.now(),
            ...(snapshots ? { snapshots, mac: macs } : {}),
            onError: (error) => o.logger?.error({ err: error }, 'fence snapshot failed'),
          }),
          settle: (p) => runner.waitFor(p),
          recordsInline: inline.length > 0,
          ...(pgLog
            ? {
                cached: {
                  guards: { alone: (guard) => pgLog.guardAlone(guard) },
                  now: () => clock.now(),
                },
              }
            : {}),
        }),
      },
      revocations: revocationCommands({
        store,
        db,
        clock,
        receipts: receiptSigner(o.auditKey),
        settle: (p) => runner.waitFor(p),
        prove,
        ...(tenantSnaps ? { tenantSnapshots: tenantSnaps } : {}),
      }),
      auditPublicKey: publicPem(o.auditKey),
      auditVkey: vkeyOf(checkpoints.key),
      audit,
      witnesses,
      auditors: auditorKeyCommands(store, () => clock.now()),
      agent: {
        collections: collectionsService({
          store,
          keys: keystore,
          now: () => clock.now(),
          ...(snapshots ? { snapshots, mac: macs, onError: (error: unknown) => o.logger?.error({ err: error }, 'agent snapshot failed') } : {}),
        }),
        keys: agentKeyCommands(store, () => clock.now()),
        settle: (p) => runner.waitFor(p),
      },
      compliance: {
        compliance,
        store,
        db,
        sealer: keystore,
        clock,
        runner,
      },
    },
    o.logger,
    metrics,
  );
  return {
    app,
    pool,
    db,
    store,
    runner,
    clock,
    relay,
    metrics,
    inline: inlineModels,
    tenants: () => tenantIds(db),
    async close() {
      if (retentionTimer) clearInterval(retentionTimer);
      await submitter?.stop();
      await app.close();
      await relay?.stop();
      await runner.stop();
      // The snapshots taken by the last answers are written after them: they still need the pool.
      await snapshotWritesSettled();
      await store.close();
      await pool.end();
    },
  };
};
