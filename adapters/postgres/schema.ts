import type { Migration } from '../../domain/ports/migrations.ts';
import { sqlFunction } from './sql/functions.ts';
import { auditLinesMigration } from './audit-lines-migration.ts';
import { auditLinesUpgrade } from '../../projections/audit-upgrade.ts';

/**
 * Every table and SQL function the service keeps beside its read models, as migrations of the
 * one ledger (`migrate.ts`). The read models' and the checkpoints' migrations stand beside
 * their projections (`projections/`), which alone name their tables, and go through the same
 * ledger. A released migration is never edited: a change is a new migration at the end.
 */

/** The log: streams, events, positions and the appends. */
export const eventStoreMigrations: readonly Migration[] = [
  {
    id: 'eventstore-001',
    sql: `
      CREATE TABLE custodian_streams (
        stream   text PRIMARY KEY,
        revision bigint NOT NULL
      );
      CREATE SEQUENCE custodian_event_position;
      CREATE TABLE custodian_events (
        position       bigint PRIMARY KEY,
        tx_id          xid8 NOT NULL,
        stream         text NOT NULL,
        revision       bigint NOT NULL,
        event_id       uuid NOT NULL UNIQUE,
        type           text NOT NULL,
        schema_version int NOT NULL,
        data           jsonb NOT NULL,
        metadata       jsonb NOT NULL,
        recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (stream, revision)
      );
      ${sqlFunction('custodian_allocate_positions')}`,
  },
  { id: 'eventstore-002', sql: sqlFunction('custodian_append') },
  { id: 'eventstore-003', sql: sqlFunction('custodian_append_many') },
  { id: 'eventstore-004', sql: `${sqlFunction('custodian_append_from')}\n${sqlFunction('custodian_append_guarded')}` },
  // Databases made before custodian_append and custodian_append_many called
  // custodian_append_from hold their older, equivalent bodies (each its own copy of the
  // append): replaced, so every database runs one body.
  { id: 'eventstore-005', sql: `${sqlFunction('custodian_append')}\n${sqlFunction('custodian_append_many')}` },
  // The one commit path: a whole batch of units (guards, conditions, revisions, key rows, events) in one call.
  { id: 'eventstore-006', sql: sqlFunction('custodian_commit') },
  // The audit line store and the commit that writes each unit's lines with its events.
  auditLinesMigration,
  // A log written before the line store: its lines frozen into it, the events not yet logged caught up first.
  auditLinesUpgrade,
];

/** The keystore: wrapped data keys and subject keys, beside the log, never in it. */
export const keystoreMigrations: readonly Migration[] = [
  {
    id: 'keystore-001',
    sql: `
      CREATE TABLE custodian_subject_keys (
        tenant text NOT NULL,
        subject text NOT NULL,
        wrapped bytea NOT NULL,
        PRIMARY KEY (tenant, subject)
      );
      CREATE TABLE custodian_data_keys (
        key_id uuid PRIMARY KEY,
        tenant text NOT NULL,
        plugin text NOT NULL,
        scope text NOT NULL,
        record_key text NOT NULL,
        owner text NOT NULL,
        wrapped bytea NOT NULL,
        UNIQUE (tenant, plugin, scope, record_key, owner)
      );`,
  },
];

/** Files kept in PostgreSQL: one row per file and tree, its sealed chunks beside it. */
export const blobMigrations: readonly Migration[] = [
  {
    id: 'blobs-001',
    sql: `
      CREATE TABLE custodian_blobs (
        tenant text NOT NULL,
        tree text NOT NULL,
        sha256 text NOT NULL,
        size bigint NOT NULL,
        chunks int NOT NULL,
        file_key jsonb NOT NULL,
        data_subject text,
        stored_ms bigint NOT NULL,
        PRIMARY KEY (tenant, tree, sha256)
      );
      CREATE TABLE custodian_blob_chunks (
        tenant text NOT NULL,
        tree text NOT NULL,
        sha256 text NOT NULL,
        idx int NOT NULL,
        bytes bytea NOT NULL,
        PRIMARY KEY (tenant, tree, sha256, idx)
      );
      ALTER TABLE custodian_blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;`,
  },
];

export const snapshotMigrations: readonly Migration[] = [
  { id: 'snapshots-001', sql: 'CREATE TABLE custodian_snapshots (stream text PRIMARY KEY, revision bigint NOT NULL, state text NOT NULL)' },
];

export const callRequestMigrations: readonly Migration[] = [
  { id: 'call-requests-001', sql: 'CREATE TABLE custodian_call_requests (call text PRIMARY KEY, n int NOT NULL)' },
];

/** The relay's checkpoint per target. IF NOT EXISTS: builds before the ledger made it unrecorded. */
export const relayMigrations: readonly Migration[] = [
  {
    id: 'relay-001',
    sql: `
      CREATE TABLE IF NOT EXISTS custodian_relay (
        target text PRIMARY KEY,
        position bigint NOT NULL
      );`,
  },
];

/** The Kafka projection consumer's offsets. IF NOT EXISTS: builds before the ledger made it unrecorded. */
export const consumerOffsetMigrations: readonly Migration[] = [
  {
    id: 'consumer-offsets-001',
    sql: `
      CREATE TABLE IF NOT EXISTS custodian_consumer_offsets (
        group_id text NOT NULL,
        topic text NOT NULL,
        partition int NOT NULL,
        kafka_offset bigint NOT NULL,
        position bigint NOT NULL,
        applied bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (group_id, topic, partition)
      );`,
  },
];
