CREATE TABLE IF NOT EXISTS custodian_checkpoints (
  name text PRIMARY KEY,
  position bigint NOT NULL
);
