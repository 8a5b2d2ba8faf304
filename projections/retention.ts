import { applyFragments, asOneUnit, sameRecord, type Fragment, type UnitEvent } from './fragments.ts';
import type { Projection } from './projection.ts';

/** An event as one row of the batch's JSON input (`n`: its place in the batch), or null when the model does not read it. */
const inputRow = ({ unit, event }: UnitEvent, n: number) => {
  switch (event.type) {
    case 'RenewalRequested': {
      const { tenant, plugin, scope, key, version, ends_at, requested_ms } = event.data;
      return { n, unit, kind: 'asked', tenant, plugin, scope, key, version, ends_at, requested_ms };
    }
    case 'RecordVersionWritten':
    case 'RecordRemoved': {
      // A new version is the renewal; a removed record needs none.
      const { tenant, plugin, scope, key } = event.data;
      return { n, unit, kind: 'renewed', tenant, plugin, scope, key };
    }
    case 'HoldPlaced': {
      const { tenant, hold, selector, reason, placed_ms } = event.data;
      return { n, unit, kind: 'placed', tenant, hold, selector, reason, placed_ms };
    }
    case 'HoldReleased':
      return { n, unit, kind: 'released', tenant: event.data.tenant, hold: event.data.hold };
    default:
      return null;
  }
};

/**
 * The batch's events among the units that committed, as one fragment: a record's renewal row
 * follows its last event (asked: upserted; written or removed: deleted), a hold its last event
 * (placed: upserted, as a hold released and placed again in the batch is; released: deleted). Each row is touched by one CTE only.
 */
const retentionFragment = (events: readonly UnitEvent[]): Fragment | null => {
  const rows = events.flatMap((e, n) => inputRow(e, n) ?? []);
  if (rows.length === 0) return null;
  return {
    ctes: [
      `retention_input AS MATERIALIZED (
         SELECT x.* FROM json_to_recordset($1::json) AS x(n int, unit int, kind text, tenant text, plugin text, scope text, key text,
           version int, ends_at bigint, requested_ms bigint, hold text, selector jsonb, reason text, placed_ms bigint)
         WHERE x.unit IN (SELECT unit FROM committed))`,
      `retention_records AS MATERIALIZED (
         SELECT DISTINCT ON (tenant, plugin, scope, key) * FROM retention_input WHERE kind IN ('asked', 'renewed')
         ORDER BY tenant, plugin, scope, key, n DESC)`,
      `retention_holds AS MATERIALIZED (
         SELECT DISTINCT ON (tenant, hold) * FROM retention_input WHERE kind IN ('placed', 'released') ORDER BY tenant, hold, n DESC)`,
      `retention_renewed AS (DELETE FROM rm_renewals r USING retention_records l WHERE l.kind = 'renewed' AND ${sameRecord('r', 'l')})`,
      `retention_asked AS (
         INSERT INTO rm_renewals (tenant, plugin, scope, key, version, ends_at, requested_ms)
         SELECT tenant, plugin, scope, key, version, ends_at, requested_ms FROM retention_records WHERE kind = 'asked'
         ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET version = EXCLUDED.version, ends_at = EXCLUDED.ends_at, requested_ms = EXCLUDED.requested_ms)`,
      `retention_released AS (DELETE FROM rm_holds h USING retention_holds l WHERE l.kind = 'released' AND h.tenant = l.tenant AND h.hold = l.hold)`,
    ],
    text: `INSERT INTO rm_holds (tenant, hold, selector, reason, placed_ms)
       SELECT tenant, hold, selector, reason, placed_ms FROM retention_holds WHERE kind = 'placed'
       ON CONFLICT (tenant, hold) DO UPDATE SET selector = EXCLUDED.selector, reason = EXCLUDED.reason, placed_ms = EXCLUDED.placed_ms`,
    params: [JSON.stringify(rows)],
  };
};

const fragmentsOf = (events: readonly UnitEvent[]): Fragment[] => {
  const fragment = retentionFragment(events);
  return fragment ? [fragment] : [];
};

/** Renewals asked of record owners, and the tenant's legal holds. */
export const retentionProjection: Projection = {
  name: 'retention',
  order: 'stream',
  canHandle: ['RenewalRequested', 'RecordVersionWritten', 'RecordRemoved', 'HoldPlaced', 'HoldReleased'],
  // A put's answer promises its renewals.
  inline: true,
  tables: ['rm_renewals', 'rm_holds'],
  apply: (sql, event) => applyFragments(sql, fragmentsOf([{ unit: 1, event }])),
  applyBatch: (sql, items) => applyFragments(sql, fragmentsOf(asOneUnit(items))),
  fragments: async (events) => fragmentsOf(events),
};
