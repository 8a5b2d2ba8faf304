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
);
