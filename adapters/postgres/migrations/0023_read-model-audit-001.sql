CREATE TABLE IF NOT EXISTS rm_audit (
  tenant text NOT NULL, seq bigint NOT NULL, at bigint NOT NULL, kind text NOT NULL, job text, subject text, epoch int,
  record_refs text[] NOT NULL, line text NOT NULL,
  PRIMARY KEY (tenant, seq)
);
CREATE INDEX IF NOT EXISTS rm_audit_by_job ON rm_audit (tenant, job);
CREATE INDEX IF NOT EXISTS rm_audit_by_record ON rm_audit USING gin (record_refs);
CREATE TABLE IF NOT EXISTS rm_audit_nodes (
  tenant text NOT NULL, level int NOT NULL, idx bigint NOT NULL, hash bytea NOT NULL,
  PRIMARY KEY (tenant, level, idx)
);
CREATE TABLE IF NOT EXISTS rm_audit_heads (tenant text PRIMARY KEY, size bigint NOT NULL);
CREATE TABLE IF NOT EXISTS rm_audit_kinds (version int PRIMARY KEY, from_position bigint NOT NULL);
INSERT INTO rm_audit_kinds (version, from_position)
  SELECT 2, coalesce((SELECT position FROM custodian_checkpoints WHERE name = 'audit'), 0) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS rm_audit_versions (
  tenant text NOT NULL, plugin text NOT NULL, scope text NOT NULL, key text NOT NULL, newest int NOT NULL,
  PRIMARY KEY (tenant, plugin, scope, key)
);
CREATE TABLE IF NOT EXISTS rm_audit_jobs (
  tenant text NOT NULL, job text NOT NULL, run int NOT NULL, agent text NOT NULL, purpose text NOT NULL, subject text NOT NULL,
  PRIMARY KEY (tenant, job, run)
);
