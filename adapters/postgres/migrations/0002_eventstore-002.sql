-- The whole append of one stream in one statement, so an append is one round trip: its
-- positions taken first, then custodian_append_from with the one stream (the revision as the
-- expectation allows, the rows, and the wake-up notice when it went through).
CREATE OR REPLACE FUNCTION custodian_append(p_stream text, p_expected text, p_ids uuid[], p_types text[], p_versions int[], p_data jsonb[], p_meta jsonb[])
RETURNS TABLE (ok boolean, first_position bigint, last_revision bigint, actual bigint)
LANGUAGE plpgsql AS $$
DECLARE
  n int := array_length(p_ids, 1);
BEGIN
  RETURN QUERY SELECT a.ok, a.first_position, a.last_revision, a.actual
    FROM custodian_append_from(custodian_allocate_positions(n), ARRAY[p_stream], ARRAY[p_expected], ARRAY[n], p_ids, p_types, p_versions, p_data, p_meta) AS a;
END $$;
