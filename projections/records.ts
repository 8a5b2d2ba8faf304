import type { Sql } from '../domain/ports/read-model.ts';
import type { Applicable, Projection } from './projection.ts';
import { inRuns } from './runs.ts';
import { fused, type Fragment } from './fragments.ts';

/**
 * Record versions and the list index (the newest version of each record), plus the request
 * keys that make a retried put answer its first write. Bodies stay sealed here: queries
 * open them on read.
 */
export const recordsProjection: Projection = {
  name: 'records',
  order: 'stream',
  tables: ['rm_record_versions', 'rm_records', 'rm_request_keys'],
  async apply(sql, event) {
    if (event.type === 'RecordRemoved') {
      const where = [event.data.tenant, event.data.plugin, event.data.scope, event.data.key];
      for (const table of ['rm_record_versions', 'rm_records', 'rm_request_keys'])
        await sql.query(`DELETE FROM ${table} WHERE tenant = $1 AND plugin = $2 AND scope = $3 AND key = $4`, where);
      return;
    }
    if (event.type !== 'RecordVersionWritten') return;
    const d = event.data;
    await sql.query(
      `INSERT INTO rm_record_versions (tenant, plugin, scope, key, version, body, body_bytes, kind, state, supersedes, ends_at,
         subject_kind, closed, purpose, labels, created_ms, writer_job, writer_agent, writer_plugin, writer_tainted, data_subject)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21)`,
      [
        d.tenant,
        d.plugin,
        d.scope,
        d.key,
        d.version,
        JSON.stringify(d.body),
        d.body_bytes,
        d.kind,
        d.state,
        d.supersedes,
        d.ends_at,
        d.subject_kind,
        d.closed,
        d.purpose,
        JSON.stringify(d.labels),
        d.created_ms,
        d.writer.job,
        d.writer.agent,
        d.writer.plugin,
        d.writer.tainted,
        d.data_subject,
      ],
    );
    await sql.query(
      `INSERT INTO rm_records (tenant, plugin, scope, key, version, kind, state, closed, ends_at, purpose, subject_kind, created_ms)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)
       ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET version = EXCLUDED.version, kind = EXCLUDED.kind, state = EXCLUDED.state,
         closed = EXCLUDED.closed, ends_at = EXCLUDED.ends_at, purpose = EXCLUDED.purpose, subject_kind = EXCLUDED.subject_kind,
         created_ms = EXCLUDED.created_ms`,
      [d.tenant, d.plugin, d.scope, d.key, d.version, d.kind, d.state, d.closed, d.ends_at, d.purpose, d.subject_kind, d.created_ms],
    );
    await sql.query('INSERT INTO rm_request_keys (tenant, request_key, plugin, scope, key, version) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT DO NOTHING', [
      d.tenant,
      d.request_key,
      d.plugin,
      d.scope,
      d.key,
      d.version,
    ]);
  },
};

type Written = Extract<Applicable['event'], { type: 'RecordVersionWritten' }>['data'];

/**
 * A run of RecordVersionWritten as one fragment over one JSON parameter, parsed once into a
 * materialized CTE that feeds the three tables (each its own data-modifying CTE): every version,
 * each record's last version of the run in the list index, the request keys (the first use of a
 * key wins, as one by one). A put's transaction pays no round trip of its own for them.
 */
const versionsWritten = (all: readonly Written[]): Fragment => {
  // Each record's last row in the run: the one one-by-one upserts would leave in the list index.
  const lastOf = new Map<string, number>();
  all.forEach((d, i) => lastOf.set(`${d.tenant}\u0000${d.plugin}\u0000${d.scope}\u0000${d.key}`, i));
  const last = new Set(lastOf.values());
  return {
    ctes: [
      `records_input AS MATERIALIZED (
         SELECT * FROM json_to_recordset($1::json) AS x(n int, last boolean, tenant text, plugin text, scope text, key text, version int,
           body jsonb, body_bytes int, kind text, state text, supersedes text, ends_at bigint, subject_kind text, closed boolean, purpose text,
           labels jsonb, created_ms bigint, writer_job text, writer_agent text, writer_plugin text, writer_tainted boolean, data_subject text,
           request_key text))`,
      `records_versions AS (
         INSERT INTO rm_record_versions (tenant, plugin, scope, key, version, body, body_bytes, kind, state, supersedes, ends_at,
           subject_kind, closed, purpose, labels, created_ms, writer_job, writer_agent, writer_plugin, writer_tainted, data_subject)
         SELECT tenant, plugin, scope, key, version, body, body_bytes, kind, state, supersedes, ends_at, subject_kind, closed, purpose,
           labels, created_ms, writer_job, writer_agent, writer_plugin, writer_tainted, data_subject
         FROM records_input)`,
      `records_index AS (
         INSERT INTO rm_records (tenant, plugin, scope, key, version, kind, state, closed, ends_at, purpose, subject_kind, created_ms)
         SELECT tenant, plugin, scope, key, version, kind, state, closed, ends_at, purpose, subject_kind, created_ms FROM records_input WHERE last
         ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET version = EXCLUDED.version, kind = EXCLUDED.kind, state = EXCLUDED.state,
           closed = EXCLUDED.closed, ends_at = EXCLUDED.ends_at, purpose = EXCLUDED.purpose, subject_kind = EXCLUDED.subject_kind,
           created_ms = EXCLUDED.created_ms)`,
    ],
    text: `INSERT INTO rm_request_keys (tenant, request_key, plugin, scope, key, version)
       SELECT tenant, request_key, plugin, scope, key, version FROM records_input ORDER BY n ON CONFLICT DO NOTHING`,
    params: [
      JSON.stringify(
        all.map((d, n) => ({
          n,
          last: last.has(n),
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
        })),
      ),
    ],
  };
};

/** A batch of writes only (puts') as one fragment, sent with the other inline models'; null for anything else (then `applyRecordsBatch`). */
export const recordsFragments = (items: readonly Applicable[]): readonly Fragment[] | null => {
  const written = items.flatMap(({ event }) => (event.type === 'RecordVersionWritten' ? [event.data] : []));
  return written.length === items.length ? [versionsWritten(written)] : null;
};

/**
 * The same model written set-based, for the runner, the inline path and rebuilds (`apply`
 * stays the one-event path): each run of RecordVersionWritten is one statement
 * (`versionsWritten`), and a RecordRemoved ends the run and deletes as `apply` does.
 */
export const applyRecordsBatch = async (sql: Sql, items: readonly Applicable[]) => {
  await inRuns(
    items,
    ({ event }) => (event.type === 'RecordVersionWritten' ? event.data : null),
    async (all) => {
      const { text, params } = fused([versionsWritten(all)]);
      await sql.query(text, params);
    },
    ({ event, recorded }) => recordsProjection.apply(sql, event, recorded),
  );
};
