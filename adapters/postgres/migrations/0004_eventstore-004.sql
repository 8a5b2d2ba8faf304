-- The appends of many commands in one statement (group commit), from positions already taken:
-- p_first, taken with the batch's BEGIN or before the statement's first write. A transaction
-- that wrote before it took its positions would hold an xid older than an appender that took
-- lower positions meanwhile; committing first, its events would be readable below xmin while
-- that appender's lower positions are not yet, and a reader would pass over them for good.
-- Each append is checked against its own stream's revision, in the order given, so two appends
-- to one stream in a batch see each other; an append that meets a wrong revision is answered
-- not ok and leaves its positions a gap.
CREATE OR REPLACE FUNCTION custodian_append_from(p_first bigint, p_streams text[], p_expected text[], p_counts int[], p_ids uuid[], p_types text[], p_versions int[], p_data jsonb[], p_meta jsonb[])
RETURNS TABLE (idx int, ok boolean, first_position bigint, last_revision bigint, actual bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  next_pos bigint := p_first;
  offs int := 0;
  n int;
  s text;
  e text;
  last bigint;
BEGIN
  FOR k IN 1..coalesce(array_length(p_streams, 1), 0) LOOP
    n := p_counts[k];
    s := p_streams[k];
    e := p_expected[k];
    last := NULL;
    IF e = 'no_stream' THEN
      INSERT INTO custodian_streams (stream, revision) VALUES (s, n - 1) ON CONFLICT DO NOTHING RETURNING revision INTO last;
    ELSIF e = 'any' THEN
      INSERT INTO custodian_streams (stream, revision) VALUES (s, n - 1)
      ON CONFLICT (stream) DO UPDATE SET revision = custodian_streams.revision + n RETURNING revision INTO last;
    ELSIF e = 'stream_exists' THEN
      UPDATE custodian_streams SET revision = revision + n WHERE stream = s RETURNING revision INTO last;
    ELSE
      UPDATE custodian_streams SET revision = revision + n WHERE stream = s AND revision = e::bigint RETURNING revision INTO last;
    END IF;
    idx := k;
    IF last IS NULL THEN
      ok := false;
      first_position := NULL;
      last_revision := NULL;
      actual := (SELECT st.revision FROM custodian_streams st WHERE st.stream = s);
    ELSE
      INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata)
      SELECT next_pos + i - 1, pg_current_xact_id(), s, last - n + i, p_ids[offs + i], p_types[offs + i], p_versions[offs + i], p_data[offs + i], p_meta[offs + i]
      FROM generate_series(1, n) AS i;
      ok := true;
      first_position := next_pos;
      last_revision := last;
      actual := last;
      next_pos := next_pos + n;
    END IF;
    offs := offs + n;
    RETURN NEXT;
  END LOOP;
  IF next_pos > p_first THEN
    PERFORM pg_notify('custodian_events', (next_pos - 1)::text);
  END IF;
END $$;

-- A batch's appends behind its admission guards, from positions already taken: the
-- appends whose guard (p_guard_of, an ordinal; null for none) is not among those held
-- (p_held) are left out (their positions stay a gap, as a conflict's do) with no row
-- answered; the rest go through custodian_append_from.
CREATE OR REPLACE FUNCTION custodian_append_guarded(p_first bigint, p_held int[], p_guard_of int[], p_streams text[], p_expected text[], p_counts int[], p_ids uuid[], p_types text[], p_versions int[], p_data jsonb[], p_meta jsonb[])
RETURNS TABLE (idx int, ok boolean, first_position bigint, last_revision bigint, actual bigint)
LANGUAGE plpgsql AS $$
DECLARE
  kept int[] := '{}';
  streams text[] := '{}';
  expected text[] := '{}';
  counts int[] := '{}';
  ids uuid[] := '{}';
  types text[] := '{}';
  versions int[] := '{}';
  datas jsonb[] := '{}';
  metas jsonb[] := '{}';
  offs int := 0;
  n int;
BEGIN
  IF coalesce(array_length(p_streams, 1), 0) = 0 THEN
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM unnest(p_guard_of) AS g(ord) WHERE g.ord IS NOT NULL AND NOT g.ord = ANY(coalesce(p_held, '{}'))) THEN
    -- Every guard held (the usual case): the arrays as they came, copied nowhere.
    RETURN QUERY SELECT a.idx, a.ok, a.first_position, a.last_revision, a.actual
      FROM custodian_append_from(p_first, p_streams, p_expected, p_counts, p_ids, p_types, p_versions, p_data, p_meta) AS a;
    RETURN;
  END IF;
  FOR k IN 1..array_length(p_streams, 1) LOOP
    n := p_counts[k];
    IF p_guard_of[k] IS NULL OR p_guard_of[k] = ANY(coalesce(p_held, '{}')) THEN
      kept := kept || k;
      streams := streams || p_streams[k];
      expected := expected || p_expected[k];
      counts := counts || n;
      ids := ids || p_ids[offs + 1 : offs + n];
      types := types || p_types[offs + 1 : offs + n];
      versions := versions || p_versions[offs + 1 : offs + n];
      datas := datas || p_data[offs + 1 : offs + n];
      metas := metas || p_meta[offs + 1 : offs + n];
    END IF;
    offs := offs + n;
  END LOOP;
  IF array_length(kept, 1) IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY SELECT kept[a.idx], a.ok, a.first_position, a.last_revision, a.actual
    FROM custodian_append_from(p_first, streams, expected, counts, ids, types, versions, datas, metas) AS a;
END $$;
