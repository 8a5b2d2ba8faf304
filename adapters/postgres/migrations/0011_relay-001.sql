CREATE TABLE IF NOT EXISTS custodian_relay (
  target text PRIMARY KEY,
  position bigint NOT NULL
);
