import type { Sealer } from '../domain/ports/sealer.ts';
import { applyFragments, asOneUnit, type Fragment, type UnitEvent } from './fragments.ts';
import type { Projection } from './projection.ts';

/**
 * A record's row depends only on its last event, so the statement keeps each record's last
 * event among the units that committed: its digest upserted when it is a write whose digest
 * opens, its row deleted otherwise (a removal, a write without one). Every write's digest is
 * opened first (which one is last is known only in the statement).
 */
const fragmentsOf = async (sealer: Sealer, events: readonly UnitEvent[]): Promise<readonly Fragment[]> => {
  await sealer.prefetch?.(events.flatMap(({ event }) => (event.type === 'RecordVersionWritten' && event.data.dedupe !== null ? [event.data.dedupe] : [])));
  const rows = [];
  for (const [n, { unit, event }] of events.entries()) {
    if (event.type !== 'RecordVersionWritten' && event.type !== 'RecordRemoved') continue;
    const { tenant, plugin, scope, key } = event.data;
    const d = event.type === 'RecordVersionWritten' ? event.data : null;
    const digest = d === null || d.dedupe === null ? null : await sealer.open({ ...d, data_subject: d.data_subject }, 'dedupe', d.dedupe);
    rows.push({ n, unit, tenant, plugin, scope, key, version: d?.version ?? null, digest });
  }
  if (rows.length === 0) return [];
  return [
    {
      ctes: [
        `dedupe_last AS MATERIALIZED (
           SELECT DISTINCT ON (tenant, plugin, scope, key) x.* FROM json_to_recordset($1::json)
             AS x(n int, unit int, tenant text, plugin text, scope text, key text, version int, digest text)
           WHERE x.unit IN (SELECT unit FROM committed) ORDER BY tenant, plugin, scope, key, n DESC)`,
        `dedupe_gone AS (
           DELETE FROM rm_dedupe_digests r USING dedupe_last d
           WHERE d.digest IS NULL AND r.tenant = d.tenant AND r.plugin = d.plugin AND r.scope = d.scope AND r.key = d.key)`,
      ],
      text: `INSERT INTO rm_dedupe_digests (tenant, plugin, scope, key, version, digest)
       SELECT tenant, plugin, scope, key, version, digest FROM dedupe_last WHERE digest IS NOT NULL
       ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET version = EXCLUDED.version, digest = EXCLUDED.digest`,
      params: [JSON.stringify(rows)],
    },
  ];
};

/**
 * The dedupe digest of each record's newest version. The log holds digests sealed (so a
 * shredded key takes them along); this table holds the keyed digest, never the text.
 */
export const dedupeDigestsProjection = (sealer: Sealer): Projection => ({
  name: 'dedupe-digests',
  order: 'stream',
  canHandle: ['RecordVersionWritten', 'RecordRemoved'],
  // A list's dedupe filter answers from it right after a put.
  inline: true,
  tables: ['rm_dedupe_digests'],
  apply: async (sql, event) => applyFragments(sql, await fragmentsOf(sealer, [{ unit: 1, event }])),
  applyBatch: async (sql, items) => applyFragments(sql, await fragmentsOf(sealer, asOneUnit(items))),
  fragments: (events) => fragmentsOf(sealer, events),
});
