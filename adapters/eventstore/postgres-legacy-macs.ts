import { RELAY_LOCK } from '../postgres/advisory-locks.ts';
import type pg from 'pg';
import type { EventMacKeys } from './authenticated.ts';
import { eventMacInput } from './event-mac-input.ts';
import type { NewEvent } from '../../domain/ports/event-store.ts';

const ID = 'event-macs-001';
const PAGE = 1000;

/**
 * Events written before the log was authenticated carry no MAC. The first start of this
 * build MACs them once, trusting the log as it stands at the upgrade, and records that it did:
 * from then on an event without a MAC is one somebody wrote into the table by hand.
 */
export const authenticateLegacyEvents = async (pool: pg.Pool, keys: EventMacKeys): Promise<number> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [RELAY_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS custodian_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = await client.query('SELECT 1 FROM custodian_migrations WHERE id = $1', [ID]);
    if (done.rows.length > 0) {
      await client.query('COMMIT');
      return 0;
    }
    let after = 0;
    let count = 0;
    for (;;) {
      const { rows } = await client.query<{ position: string; stream: string } & Omit<NewEvent, 'data'> & { data: unknown }>(
        `SELECT position, stream, event_id, type, schema_version, data, metadata FROM custodian_events
         WHERE position > $1 ORDER BY position LIMIT $2`,
        [after, PAGE],
      );
      if (rows.length === 0) break;
      const unsigned = rows.filter((r) => typeof r.metadata.mac !== 'string');
      if (unsigned.length > 0) {
        await client.query(
          `UPDATE custodian_events e SET metadata = e.metadata || jsonb_build_object('mac', m.mac)
           FROM unnest($1::bigint[], $2::text[]) AS m(position, mac) WHERE e.position = m.position`,
          [unsigned.map((r) => r.position), unsigned.map((r) => keys(r.metadata.tenant)(eventMacInput(r.stream, r)))],
        );
        count += unsigned.length;
      }
      after = Number(rows.at(-1)!.position);
    }
    await client.query('INSERT INTO custodian_migrations (id) VALUES ($1)', [ID]);
    await client.query('COMMIT');
    return count;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
