-- The whole append in one statement, so an append is one round trip: positions and xid, the
-- stream's revision as the expectation allows, the rows, and the wake-up notice.
CREATE OR REPLACE FUNCTION custodian_append(p_stream text, p_expected text, p_ids uuid[], p_types text[], p_versions int[], p_data jsonb[], p_meta jsonb[])
RETURNS TABLE (ok boolean, first_position bigint, last_revision bigint, actual bigint)
LANGUAGE plpgsql AS $$
DECLARE
  n int := array_length(p_ids, 1);
  first bigint;
  last bigint;
BEGIN
  first := custodian_allocate_positions(n);
  IF p_expected = 'no_stream' THEN
    INSERT INTO custodian_streams (stream, revision) VALUES (p_stream, n - 1) ON CONFLICT DO NOTHING RETURNING revision INTO last;
  ELSIF p_expected = 'any' THEN
    INSERT INTO custodian_streams (stream, revision) VALUES (p_stream, n - 1)
    ON CONFLICT (stream) DO UPDATE SET revision = custodian_streams.revision + n RETURNING revision INTO last;
  ELSIF p_expected = 'stream_exists' THEN
    UPDATE custodian_streams SET revision = revision + n WHERE stream = p_stream RETURNING revision INTO last;
  ELSE
    UPDATE custodian_streams SET revision = revision + n WHERE stream = p_stream AND revision = p_expected::bigint RETURNING revision INTO last;
  END IF;
  IF last IS NULL THEN
    RETURN QUERY SELECT false, NULL::bigint, NULL::bigint, (SELECT s.revision FROM custodian_streams s WHERE s.stream = p_stream);
    RETURN;
  END IF;
  INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata)
  SELECT first + i - 1, pg_current_xact_id(), p_stream, last - n + i, p_ids[i], p_types[i], p_versions[i], p_data[i], p_meta[i]
  FROM generate_subscripts(p_ids, 1) AS i;
  PERFORM pg_notify('custodian_events', (first + n - 1)::text);
  RETURN QUERY SELECT true, first, last, last;
END $$;
