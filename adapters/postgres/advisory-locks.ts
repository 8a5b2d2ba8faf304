/**
 * Every PostgreSQL advisory lock id the service takes, in one place, so no two meanings share
 * one. Two-key locks (`pg_advisory_xact_lock(id, hashtext(name))`) use the id as their class.
 */
/** Migrations: one instance migrates at a time. */
export const MIGRATION_LOCK = 7243000;
/** Handing out event positions (with the transaction's id), held only while numbers are taken. */
export const POSITIONS_LOCK = 7243001;
/** The projection runner: one instance applies a batch at a time. */
export const PROJECTION_RUNNER_LOCK = 7243002;
/** The Kafka relay's targets (two-key, by target), and the one-off MAC backfill (one key). */
export const RELAY_LOCK = 7243003;
/** A stream others append on the condition of (two-key, by stream): see `AppendConditions`. */
export const WATCHED_STREAM_LOCK = 7243004;
