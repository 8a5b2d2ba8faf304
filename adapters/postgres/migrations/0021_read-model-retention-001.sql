CREATE TABLE IF NOT EXISTS rm_renewals (
  tenant text NOT NULL, plugin text NOT NULL, scope text NOT NULL, key text NOT NULL, version int NOT NULL,
  ends_at bigint NOT NULL, requested_ms bigint NOT NULL,
  PRIMARY KEY (tenant, plugin, scope, key)
);
CREATE TABLE IF NOT EXISTS rm_holds (
  tenant text NOT NULL, hold text NOT NULL, selector jsonb NOT NULL, reason text NOT NULL, placed_ms bigint NOT NULL,
  PRIMARY KEY (tenant, hold)
);
