import type { Projection } from './projection.ts';

/**
 * Record versions and the list index (the newest version of each record), plus the request
 * keys that make a retried put answer its first write. Bodies stay sealed here: queries
 * open them on read.
 */
export const recordsProjection: Projection = {
  name: 'records',
  order: 'stream',
  tables: ['rm_record_versions', 'rm_records', 'rm_request_keys'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_record_versions (
      tenant text NOT NULL, plugin text NOT NULL, scope text NOT NULL, key text NOT NULL, version int NOT NULL,
      body jsonb NOT NULL, body_bytes int NOT NULL, kind text NOT NULL, state text NOT NULL, supersedes text,
      ends_at bigint NOT NULL, subject_kind text NOT NULL, closed boolean NOT NULL, purpose text NOT NULL,
      labels jsonb NOT NULL, created_ms bigint NOT NULL, writer_job text NOT NULL, writer_agent text NOT NULL,
      writer_plugin text NOT NULL, writer_tainted boolean NOT NULL, data_subject text,
      PRIMARY KEY (tenant, plugin, scope, key, version)
    );
    CREATE TABLE IF NOT EXISTS rm_records (
      tenant text NOT NULL, plugin text NOT NULL, scope text NOT NULL, key text NOT NULL, version int NOT NULL,
      kind text NOT NULL, state text NOT NULL, closed boolean NOT NULL, ends_at bigint NOT NULL,
      purpose text NOT NULL, subject_kind text NOT NULL, created_ms bigint NOT NULL,
      PRIMARY KEY (tenant, plugin, scope, key)
    );
    CREATE INDEX IF NOT EXISTS rm_records_by_created ON rm_records (tenant, plugin, created_ms, scope, key);
    CREATE TABLE IF NOT EXISTS rm_request_keys (
      tenant text NOT NULL, request_key text NOT NULL, plugin text NOT NULL, scope text NOT NULL, key text NOT NULL, version int NOT NULL,
      PRIMARY KEY (tenant, request_key)
    );`,
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
      [d.tenant, d.plugin, d.scope, d.key, d.version, JSON.stringify(d.body), d.body_bytes, d.kind, d.state, d.supersedes, d.ends_at,
        d.subject_kind, d.closed, d.purpose, JSON.stringify(d.labels), d.created_ms, d.writer.job, d.writer.agent, d.writer.plugin,
        d.writer.tainted, d.data_subject],
    );
    await sql.query(
      `INSERT INTO rm_records (tenant, plugin, scope, key, version, kind, state, closed, ends_at, purpose, subject_kind, created_ms)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)
       ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET version = EXCLUDED.version, kind = EXCLUDED.kind, state = EXCLUDED.state,
         closed = EXCLUDED.closed, ends_at = EXCLUDED.ends_at, purpose = EXCLUDED.purpose, subject_kind = EXCLUDED.subject_kind,
         created_ms = EXCLUDED.created_ms`,
      [d.tenant, d.plugin, d.scope, d.key, d.version, d.kind, d.state, d.closed, d.ends_at, d.purpose, d.subject_kind, d.created_ms],
    );
    await sql.query(
      'INSERT INTO rm_request_keys (tenant, request_key, plugin, scope, key, version) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT DO NOTHING',
      [d.tenant, d.request_key, d.plugin, d.scope, d.key, d.version],
    );
  },
};
