/**
 * Every PostgreSQL advisory lock id the service takes, in one place, so no two meanings share
 * one. Two-key locks (`pg_advisory_xact_lock(id, hashtext(name))`) use the id as their class.
 */
/** Migrations (the ledger, and the one-off MAC backfill it records): one instance migrates at a time. */
export const MIGRATION_LOCK = 7243000;
/**
 * Handing out event positions (with the transaction's id), held only while numbers are taken:
 * named as a number in the migration that defines `custodian_allocate_positions` (a test holds them equal).
 */
export const POSITIONS_LOCK = 7243001;
/** Retired (the read models' tables were once made under it; the migration ledger makes them now): not to be given another meaning. */
export const PROJECTION_RUNNER_LOCK = 7243002;
/** The Kafka relay's targets (two-key, by target). */
export const RELAY_LOCK = 7243003;
/** A stream others append on the condition of (two-key, by stream): see `AppendConditions`. */
export const WATCHED_STREAM_LOCK = 7243004;
/** Placing a tenant on a tenant database (the control database's placement table): one placement at a time; two-key (by tenant), one move of a tenant at a time. */
export const PLACEMENT_LOCK = 7243005;
