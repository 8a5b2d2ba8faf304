import { applyFragments, asOneUnit, sameRecord, type Fragment, type UnitEvent } from './fragments.ts';
import type { Projection } from './projection.ts';

/** A record's write or removal as one row of the batch's JSON input (`n`: its place in the batch). */
const inputRow = ({ unit, event }: UnitEvent, n: number) => {
  if (event.type === 'RecordRemoved') {
    const d = event.data;
    return { n, unit, removed: true, tenant: d.tenant, plugin: d.plugin, scope: d.scope, key: d.key };
  }
  if (event.type !== 'RecordVersionWritten') return null;
  const d = event.data;
  return {
    n,
    unit,
    removed: false,
    tenant: d.tenant,
    plugin: d.plugin,
    scope: d.scope,
    key: d.key,
    version: d.version,
    body: d.body,
    body_bytes: d.body_bytes,
    kind: d.kind,
    state: d.state,
    supersedes: d.supersedes,
    ends_at: d.ends_at,
    subject_kind: d.subject_kind,
    closed: d.closed,
    purpose: d.purpose,
    labels: d.labels,
    created_ms: d.created_ms,
    writer_job: d.writer.job,
    writer_agent: d.writer.agent,
    writer_plugin: d.writer.plugin,
    writer_tainted: d.writer.tainted,
    data_subject: d.data_subject,
    request_key: d.request_key,
  };
};

const RECORD = 'tenant, plugin, scope, key';
const VERSION_COLUMNS = `tenant, plugin, scope, key, version, body, body_bytes, kind, state, supersedes, ends_at, subject_kind, closed, purpose,
  labels, created_ms, writer_job, writer_agent, writer_plugin, writer_tainted, data_subject`;
const INDEX_COLUMNS = 'tenant, plugin, scope, key, version, kind, state, closed, ends_at, purpose, subject_kind, created_ms';

/**
 * The batch's record writes and removals as one fragment over one JSON parameter, for the
 * units that committed. The CTEs of one statement do not see each other's writes, so what one
 * event after another would leave is said per record: its versions after its last removal in
 * the batch are written (a removal deletes the ones before, a re-created key overwriting its
 * old version numbers), its last event sets its list row (written or deleted), and its request
 * keys follow its versions (the first use of a key wins). No row is touched by two CTEs.
 */
const recordsFragments = (events: readonly UnitEvent[]): Fragment[] => {
  const rows = events.flatMap((e, n) => inputRow(e, n) ?? []);
  if (rows.length === 0) return [];
  return [
    {
      ctes: [
        `records_input AS MATERIALIZED (
         SELECT x.* FROM json_to_recordset($1::json) AS x(n int, unit int, removed boolean, tenant text, plugin text, scope text, key text,
           version int, body jsonb, body_bytes int, kind text, state text, supersedes text, ends_at bigint, subject_kind text, closed boolean,
           purpose text, labels jsonb, created_ms bigint, writer_job text, writer_agent text, writer_plugin text, writer_tainted boolean,
           data_subject text, request_key text)
         WHERE x.unit IN (SELECT unit FROM committed))`,
        `records_cut AS MATERIALIZED (SELECT ${RECORD}, max(n) AS n FROM records_input WHERE removed GROUP BY ${RECORD})`,
        `records_kept AS MATERIALIZED (
         SELECT i.* FROM records_input i LEFT JOIN records_cut c ON ${sameRecord('c', 'i')} WHERE NOT i.removed AND i.n > coalesce(c.n, -1))`,
        `records_last AS MATERIALIZED (SELECT DISTINCT ON (${RECORD}) * FROM records_input ORDER BY ${RECORD}, n DESC)`,
        `records_versions_gone AS (
         DELETE FROM rm_record_versions v USING records_cut c WHERE ${sameRecord('v', 'c')}
           AND NOT EXISTS (SELECT 1 FROM records_kept k WHERE ${sameRecord('k', 'v')} AND k.version = v.version))`,
        `records_versions AS (
         INSERT INTO rm_record_versions (${VERSION_COLUMNS}) SELECT ${VERSION_COLUMNS} FROM records_kept
         ON CONFLICT (tenant, plugin, scope, key, version) DO UPDATE SET body = EXCLUDED.body, body_bytes = EXCLUDED.body_bytes,
           kind = EXCLUDED.kind, state = EXCLUDED.state, supersedes = EXCLUDED.supersedes, ends_at = EXCLUDED.ends_at,
           subject_kind = EXCLUDED.subject_kind, closed = EXCLUDED.closed, purpose = EXCLUDED.purpose, labels = EXCLUDED.labels,
           created_ms = EXCLUDED.created_ms, writer_job = EXCLUDED.writer_job, writer_agent = EXCLUDED.writer_agent,
           writer_plugin = EXCLUDED.writer_plugin, writer_tainted = EXCLUDED.writer_tainted, data_subject = EXCLUDED.data_subject)`,
        `records_index_gone AS (DELETE FROM rm_records r USING records_last l WHERE l.removed AND ${sameRecord('r', 'l')})`,
        `records_index AS (
         INSERT INTO rm_records (${INDEX_COLUMNS}) SELECT ${INDEX_COLUMNS} FROM records_last WHERE NOT removed
         ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET version = EXCLUDED.version, kind = EXCLUDED.kind, state = EXCLUDED.state,
           closed = EXCLUDED.closed, ends_at = EXCLUDED.ends_at, purpose = EXCLUDED.purpose, subject_kind = EXCLUDED.subject_kind,
           created_ms = EXCLUDED.created_ms)`,
        `records_keys_gone AS (
         DELETE FROM rm_request_keys r USING records_cut c WHERE ${sameRecord('r', 'c')}
           AND NOT EXISTS (SELECT 1 FROM records_kept k WHERE k.tenant = r.tenant AND k.request_key = r.request_key))`,
      ],
      text: `INSERT INTO rm_request_keys (tenant, request_key, plugin, scope, key, version)
       SELECT tenant, request_key, plugin, scope, key, version FROM records_kept ORDER BY n ON CONFLICT DO NOTHING`,
      params: [JSON.stringify(rows)],
    },
  ];
};

/**
 * Record versions and the list index (the newest version of each record), plus the request
 * keys that make a retried put answer its first write. Bodies stay sealed here: queries open
 * them on read. Inline: a put's answer promises its list index, versions and request keys.
 */
export const recordsProjection: Projection = {
  name: 'records',
  order: 'stream',
  canHandle: ['RecordVersionWritten', 'RecordRemoved'],
  inline: true,
  tables: ['rm_record_versions', 'rm_records', 'rm_request_keys'],
  apply: (sql, event) => applyFragments(sql, recordsFragments([{ unit: 1, event }])),
  applyBatch: (sql, items) => applyFragments(sql, recordsFragments(asOneUnit(items))),
  fragments: async (events) => recordsFragments(events),
};
