-- custodian_append_from with the batch's positions taken here, first, under the same short
-- lock (one for every event given). Where no append went through it still sends the wake-up
-- notice (of the position before its first), and an empty list of streams is refused as the
-- loop it once was refused it: its answers, positions and errors are what they always were.
CREATE OR REPLACE FUNCTION custodian_append_many(p_streams text[], p_expected text[], p_counts int[], p_ids uuid[], p_types text[], p_versions int[], p_data jsonb[], p_meta jsonb[])
RETURNS TABLE (idx int, ok boolean, first_position bigint, last_revision bigint, actual bigint)
LANGUAGE plpgsql AS $$
DECLARE
  first bigint;
  appended boolean := false;
  a record;
BEGIN
  first := custodian_allocate_positions(array_length(p_ids, 1));
  IF array_length(p_streams, 1) IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed', MESSAGE = 'upper bound of FOR loop cannot be null';
  END IF;
  FOR a IN SELECT * FROM custodian_append_from(first, p_streams, p_expected, p_counts, p_ids, p_types, p_versions, p_data, p_meta) LOOP
    idx := a.idx;
    ok := a.ok;
    first_position := a.first_position;
    last_revision := a.last_revision;
    actual := a.actual;
    appended := appended OR a.ok;
    RETURN NEXT;
  END LOOP;
  IF NOT appended THEN
    PERFORM pg_notify('custodian_events', (first - 1)::text);
  END IF;
END $$;
