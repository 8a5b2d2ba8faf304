import type pg from 'pg';
import type { InlineProjections } from '../eventstore/inline-projections.ts';
import { inTransaction } from '../postgres/pool.ts';
import { EVERY_EVENT, fused } from '../../projections/fragments.ts';
import { EVENT_COLUMNS, toRecorded, type EventRow } from '../eventstore/postgres.ts';
import { CALLS_OF_TENANT, deleteTenantModels } from '../../queries/tenant-residence.ts';

/** A tenant that cannot be moved as it is (a stream of it holds another tenant's events). */
export class MoveRefused extends Error {}

/**
 * Every stream of the tenant: each is named `<kind>:<tenant>[:…]` (a tenant id has no colon),
 * read from the stream heads, not by scanning the log. The check after the copy counts the
 * tenant's events by their metadata, so a stream named otherwise fails the move, never escapes it.
 */
const STREAMS = `SELECT stream FROM custodian_streams WHERE split_part(stream, ':', 2) = $1`;

/** The tenant's rows of each table outside the log, as the source database holds them. */
const SIDE_TABLES: readonly { table: string; where: string; by: 'stream' | 'tenant' }[] = [
  { table: 'custodian_streams', where: 'stream = ANY($1)', by: 'stream' },
  { table: 'custodian_snapshots', where: 'stream = ANY($1)', by: 'stream' },
  { table: 'custodian_subject_keys', where: 'tenant = $1', by: 'tenant' },
  { table: 'custodian_data_keys', where: 'tenant = $1', by: 'tenant' },
  { table: 'custodian_blobs', where: 'tenant = $1', by: 'tenant' },
  { table: 'custodian_blob_chunks', where: 'tenant = $1', by: 'tenant' },
  { table: 'custodian_call_requests', where: `call IN (${CALLS_OF_TENANT})`, by: 'tenant' },
  // The audit log's stored lines at their places, and its counter: the target integrates the same tree.
  { table: 'custodian_audit_sizes', where: 'tenant = $1', by: 'tenant' },
  { table: 'custodian_audit_lines', where: 'tenant = $1', by: 'tenant' },
];

/** The position of the tenant's last event in this database (0: none). */
export const tenantLastPosition = async (pool: pg.Pool, tenant: string): Promise<number> =>
  Number((await pool.query<{ p: string | null }>(`SELECT max(position) AS p FROM custodian_events WHERE metadata->>'tenant' = $1`, [tenant])).rows[0]!.p ?? 0);

/** How many events the tenant has in this database. */
export const tenantEventCount = async (pool: pg.Pool, tenant: string): Promise<number> =>
  Number((await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_events WHERE metadata->>'tenant' = $1`, [tenant])).rows[0]!.n);

/**
 * Copies the tenant's whole state from `source` to `target` in one target transaction: its
 * events in log order, byte for byte (id, data, metadata with the MAC, time; revisions kept,
 * positions taken anew as any append takes them), its stream heads, snapshots, keys, files,
 * request counts and stored audit lines at their places; the inline models are written from the
 * copied events as an append writes them, and the target's projection runner builds the rest
 * (the audit tree from the stored lines, as it integrates any). Either all of it is in the target or none. Answers the events copied.
 * `relayed`: the source's relay (Kafka) has published every one of these events already, so the
 * target's relay is told to step over the copies (no consumer sees an event twice).
 */
export const copyTenant = async (
  source: pg.Pool,
  target: pg.Pool,
  inline: InlineProjections,
  tenant: string,
  relayed = false,
): Promise<{ events: number; last: number }> => {
  // One snapshot of the source: the events and side tables of one moment.
  const read = await inTransaction(source, async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const streams = (await tx.query<{ stream: string }>(STREAMS, [tenant])).rows.map((r) => r.stream);
    const { rows: shared } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM custodian_events WHERE stream = ANY($1) AND metadata->>'tenant' IS DISTINCT FROM $2`,
      [streams, tenant],
    );
    if (shared[0]!.n > 0) throw new MoveRefused(`a stream of tenant ${tenant} holds another tenant's events`);
    const { rows: events } = await tx.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM custodian_events WHERE stream = ANY($1) ORDER BY position`, [streams]);
    const { rows: json } = await tx.query<{ events: unknown }>(
      `SELECT coalesce(jsonb_agg(to_jsonb(e) ORDER BY e.position), '[]'::jsonb) AS events FROM custodian_events e WHERE e.stream = ANY($1)`,
      [streams],
    );
    const side: { table: string; rows: unknown }[] = [];
    for (const { table, where, by } of SIDE_TABLES) {
      const { rows } = await tx.query<{ rows: unknown }>(`SELECT coalesce(jsonb_agg(to_jsonb(t)), '[]'::jsonb) AS rows FROM ${table} t WHERE ${where}`, [
        by === 'stream' ? streams : tenant,
      ]);
      side.push({ table, rows: rows[0]!.rows });
    }
    return { events, json: json[0]!.events, side };
  });
  if (read.events.length === 0) return { events: 0, last: 0 };

  return inTransaction(target, async (tx) => {
    // Positions first (with the transaction's id), as every append takes them: a reader
    // stopping at the oldest running transaction never passes over these.
    const { rows } = await tx.query<{ first: number }>('SELECT custodian_allocate_positions($1) AS first', [read.events.length]);
    const first = Number(rows[0]!.first);
    await tx.query(
      `INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata, recorded_at)
       SELECT $1 + row_number() OVER (ORDER BY r.position) - 1, pg_current_xact_id(), r.stream, r.revision, r.event_id, r.type, r.schema_version,
              r.data, r.metadata, r.recorded_at
       FROM jsonb_populate_recordset(NULL::custodian_events, $2) r`,
      [first, JSON.stringify(read.json)],
    );
    for (const { table, rows: json } of read.side)
      await tx.query(`INSERT INTO ${table} SELECT * FROM jsonb_populate_recordset(NULL::${table}, $1)`, [JSON.stringify(json)]);
    // A line names its event's position: the copy's, taken anew above in the same order.
    await tx.query(
      `UPDATE custodian_audit_lines l SET position = m.new FROM unnest($2::bigint[], $3::bigint[]) AS m(old, new)
       WHERE l.tenant = $1 AND l.position = m.old`,
      [tenant, read.events.map((e) => Number(e.position)), read.events.map((_, i) => first + i)],
    );
    // The inline models of the copied events, each of which stands (one unit, committed).
    const models = await inline.fragments(read.events.filter((e) => inline.handles(e.type)).map((event) => ({ unit: 1, event: toRecorded(event) })));
    if (models.length > 0) {
      const { text, params } = fused(models, EVERY_EVENT);
      await tx.query(text, params);
    }
    const last = first + read.events.length - 1;
    if (relayed) await tx.query('INSERT INTO custodian_relay_skips (first_position, last_position) VALUES ($1, $2)', [first, last]);
    await tx.query(`SELECT pg_notify('custodian_events', $1)`, [String(last)]);
    return { events: read.events.length, last };
  });
};

/**
 * Removes every row of the tenant from a database: the copy a finished move left behind, or a
 * copy an interrupted move made and did not switch to: the log's rows, the tables beside it and
 * every read model's (queries/tenant-residence.ts), in one transaction.
 */
export const purgeTenant = async (pool: pg.Pool, tenant: string): Promise<void> => {
  await inTransaction(pool, async (tx) => {
    const streams = (await tx.query<{ stream: string }>(STREAMS, [tenant])).rows.map((r) => r.stream);
    // Counters before the calls that name them.
    for (const { table, where, by } of [...SIDE_TABLES].reverse()) await tx.query(`DELETE FROM ${table} WHERE ${where}`, [by === 'stream' ? streams : tenant]);
    await tx.query('DELETE FROM custodian_events WHERE stream = ANY($1)', [streams]);
    await deleteTenantModels(tx, tenant);
  });
};
