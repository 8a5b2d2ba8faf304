import type pg from 'pg';
import type { Sql } from '../../domain/ports/read-model.ts';
import { migrate } from '../postgres/migrate.ts';
import type { EventMacKeys } from './authenticated.ts';
import { eventMacInput } from './event-mac-input.ts';
import type { NewEvent } from '../../domain/ports/event-store.ts';

const PAGE = 1000;
const READ_PAGE = `SELECT position, stream, event_id, type, schema_version, data, metadata FROM custodian_events
         WHERE position > $1 ORDER BY position LIMIT $2`;
const SET_MACS = `UPDATE custodian_events e SET metadata = e.metadata || jsonb_build_object('mac', m.mac)
           FROM unnest($1::bigint[], $2::text[]) AS m(position, mac) WHERE e.position = m.position`;

/** MACs every event that has none, a page at a time; answers how many. */
const macUnsigned = async (tx: Sql, keys: EventMacKeys): Promise<number> => {
  let after = 0;
  let count = 0;
  for (;;) {
    const { rows } = await tx.query<{ position: string; stream: string } & Omit<NewEvent, 'data'> & { data: unknown }>(READ_PAGE, [after, PAGE]);
    if (rows.length === 0) break;
    const unsigned = rows.filter((r) => typeof r.metadata.mac !== 'string');
    if (unsigned.length > 0) {
      await tx.query(SET_MACS, [unsigned.map((r) => r.position), unsigned.map((r) => keys(r.metadata.tenant)(eventMacInput(r.stream, r)))]);
      count += unsigned.length;
    }
    after = Number(rows.at(-1)!.position);
  }
  return count;
};

/**
 * Events written before the log was authenticated carry no MAC. The first start of this
 * build MACs them once, trusting the log as it stands at the upgrade, and records that it did
 * in the migration ledger: from then on an event without a MAC is one somebody wrote into the
 * table by hand. Answers how many it MACed (0 when it was done before).
 */
export const authenticateLegacyEvents = async (pool: pg.Pool, keys: EventMacKeys): Promise<number> => {
  let count = 0;
  await migrate(pool, [
    {
      id: 'event-macs-001',
      sql: `${READ_PAGE};\n${SET_MACS};`,
      run: async (tx) => {
        count = await macUnsigned(tx, keys);
      },
    },
  ]);
  return count;
};
