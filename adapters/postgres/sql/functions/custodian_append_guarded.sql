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
