CREATE TABLE IF NOT EXISTS rm_jobs (
  tenant text NOT NULL,
  id text NOT NULL,
  run int NOT NULL,
  status text NOT NULL,
  agent text NOT NULL,
  plugin text NOT NULL,
  install_gen int NOT NULL,
  purpose text NOT NULL,
  subject text NOT NULL,
  data_subject text,
  labels jsonb NOT NULL,
  scopes jsonb NOT NULL,
  expires_ms bigint,
  started_ms bigint NOT NULL,
  ended_ms bigint,
  calls_minted int NOT NULL DEFAULT 0,
  parent text,
  chain jsonb NOT NULL DEFAULT '[]',
  epoch int,
  PRIMARY KEY (tenant, id)
);
-- null: no expiry (SPEC §6); databases made before that allowed none.
ALTER TABLE rm_jobs ALTER COLUMN expires_ms DROP NOT NULL;
