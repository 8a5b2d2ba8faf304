      CREATE TABLE custodian_streams (
        stream   text PRIMARY KEY,
        revision bigint NOT NULL
      );
      CREATE SEQUENCE custodian_event_position;
      CREATE TABLE custodian_events (
        position       bigint PRIMARY KEY,
        tx_id          xid8 NOT NULL,
        stream         text NOT NULL,
        revision       bigint NOT NULL,
        event_id       uuid NOT NULL UNIQUE,
        type           text NOT NULL,
        schema_version int NOT NULL,
        data           jsonb NOT NULL,
        metadata       jsonb NOT NULL,
        recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (stream, revision)
      );
      -- Positions are handed out under a short session-level advisory lock (POSITIONS_LOCK in
-- adapters/postgres/advisory-locks.ts), together with the transaction's id (xid). So position
-- order equals xid order, and a reader that stops at the oldest running transaction
-- (pg_snapshot_xmin) can never pass over an event that is still to commit: every lower position
-- belongs to an xid below xmin, hence finished. The lock is held only while numbers are taken,
-- not until commit, so appends to different streams still overlap.
CREATE OR REPLACE FUNCTION custodian_allocate_positions(n int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  first bigint;
BEGIN
  PERFORM pg_advisory_lock(7243001);
  BEGIN
    PERFORM pg_current_xact_id();
    first := nextval('custodian_event_position');
    FOR i IN 2..n LOOP
      PERFORM nextval('custodian_event_position');
    END LOOP;
  EXCEPTION WHEN OTHERS THEN
    PERFORM pg_advisory_unlock(7243001);
    RAISE;
  END;
  PERFORM pg_advisory_unlock(7243001);
  RETURN first;
END $$;
