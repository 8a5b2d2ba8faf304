import type { Sql } from '../domain/ports/read-model.ts';
import type { Fragment } from './fragments.ts';
import type { Applicable, Projection } from './projection.ts';
import { inRuns } from './runs.ts';

interface RecordRef {
  readonly tenant: string;
  readonly plugin: string;
  readonly scope: string;
  readonly key: string;
}

/** A run of writes and removals: one DELETE of their renewals. */
const renewalsDropped = (refs: readonly RecordRef[]): Fragment => ({
  text: `DELETE FROM rm_renewals r USING unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS d(tenant, plugin, scope, key)
     WHERE r.tenant = d.tenant AND r.plugin = d.plugin AND r.scope = d.scope AND r.key = d.key`,
  params: [refs.map((r) => r.tenant), refs.map((r) => r.plugin), refs.map((r) => r.scope), refs.map((r) => r.key)],
});

const dropRenewals = (sql: Sql, refs: readonly RecordRef[]) => {
  const { text, params } = renewalsDropped(refs);
  return sql.query(text, params);
};

const refOf = ({ event }: Applicable): RecordRef | null =>
  event.type === 'RecordVersionWritten' || event.type === 'RecordRemoved'
    ? { tenant: event.data.tenant, plugin: event.data.plugin, scope: event.data.scope, key: event.data.key }
    : null;

/** Renewals asked of record owners, and the tenant's legal holds. */
export const retentionProjection: Projection = {
  name: 'retention',
  order: 'stream',
  canHandle: ['RenewalRequested', 'RecordVersionWritten', 'RecordRemoved', 'HoldPlaced', 'HoldReleased'],
  // A put's answer promises its renewals.
  inline: true,
  tables: ['rm_renewals', 'rm_holds'],
  async apply(sql, event) {
    switch (event.type) {
      case 'RenewalRequested': {
        const d = event.data;
        await sql.query(
          `INSERT INTO rm_renewals (tenant, plugin, scope, key, version, ends_at, requested_ms) VALUES ($1,$2,$3,$4,$5,$6,$7)
           ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET version = EXCLUDED.version, ends_at = EXCLUDED.ends_at, requested_ms = EXCLUDED.requested_ms`,
          [d.tenant, d.plugin, d.scope, d.key, d.version, d.ends_at, d.requested_ms],
        );
        return;
      }
      case 'RecordVersionWritten':
      case 'RecordRemoved':
        // A new version is the renewal; a removed record needs none.
        await sql.query('DELETE FROM rm_renewals WHERE tenant = $1 AND plugin = $2 AND scope = $3 AND key = $4', [
          event.data.tenant,
          event.data.plugin,
          event.data.scope,
          event.data.key,
        ]);
        return;
      case 'HoldPlaced':
        await sql.query('INSERT INTO rm_holds (tenant, hold, selector, reason, placed_ms) VALUES ($1,$2,$3,$4,$5)', [
          event.data.tenant,
          event.data.hold,
          JSON.stringify(event.data.selector),
          event.data.reason,
          event.data.placed_ms,
        ]);
        return;
      case 'HoldReleased':
        await sql.query('DELETE FROM rm_holds WHERE tenant = $1 AND hold = $2', [event.data.tenant, event.data.hold]);
        return;
      default:
        return;
    }
  },
  async applyBatch(sql, items) {
    await inRuns(
      items,
      refOf,
      (refs) => dropRenewals(sql, refs),
      ({ event, recorded }) => retentionProjection.apply(sql, event, recorded),
    );
  },
  // A batch of writes and removals only (a put's) is one DELETE; anything else goes through applyBatch.
  async fragments(items) {
    const refs = items.map(refOf);
    return refs.every((r) => r !== null) ? [renewalsDropped(refs as RecordRef[])] : null;
  },
};
