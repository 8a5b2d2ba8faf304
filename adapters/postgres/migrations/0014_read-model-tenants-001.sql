CREATE TABLE IF NOT EXISTS rm_tenants (
  id text PRIMARY KEY,
  settings jsonb NOT NULL,
  authority_epoch int NOT NULL,
  created_ms bigint NOT NULL,
  pending_erasures jsonb NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS rm_plugins (
  tenant text NOT NULL,
  name text NOT NULL,
  install_gen int NOT NULL,
  scopes jsonb NOT NULL,
  functions jsonb NOT NULL,
  agents jsonb NOT NULL,
  startup text,
  PRIMARY KEY (tenant, name)
);
