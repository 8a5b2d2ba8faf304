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
