CREATE TABLE IF NOT EXISTS rm_dedupe_digests (
  tenant text NOT NULL, plugin text NOT NULL, scope text NOT NULL, key text NOT NULL, version int NOT NULL,
  digest text NOT NULL,
  PRIMARY KEY (tenant, plugin, scope, key)
);
CREATE INDEX IF NOT EXISTS rm_dedupe_digests_by_digest ON rm_dedupe_digests (tenant, plugin, scope, digest);
