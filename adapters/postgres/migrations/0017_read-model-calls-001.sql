CREATE TABLE IF NOT EXISTS rm_calls (
  ticket_hash text PRIMARY KEY,
  tenant text NOT NULL,
  job text NOT NULL,
  run int NOT NULL,
  call text NOT NULL,
  step int NOT NULL,
  function text NOT NULL,
  idempotency_key text NOT NULL,
  startup boolean NOT NULL,
  minted_ms bigint NOT NULL,
  ended_ms bigint
);
CREATE UNIQUE INDEX IF NOT EXISTS rm_calls_by_call ON rm_calls (tenant, job, call);
