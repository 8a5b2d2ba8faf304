-- custodian_commit reads every table by its indexes, whatever the table's size when the session
-- planned. Its statements keep generic plans (plan_cache_mode; custom plans planned every unit's
-- statements on every call), made once a session and kept until an ANALYZE: a plan made while a
-- table was small scanned it whole on every call while it grew (the streams, the calls, the
-- request keys: each grows by a row a put or a call). The request key check, written
-- `key IS NULL OR NOT EXISTS (…)`, was planned as a hashed subplan: a scan of every key ever
-- written, once a batch (0.77 ms a batch at 4,000 keys, bench/profile-put.ts). Now it is a scalar
-- subquery, which is never hashed (a NULL key matches no row), and the function plans with
-- enable_seqscan off: each of its lookups is by key, and a key's index probe costs the same at
-- any size. The body is 0030's (eventstore-010) but for that check.
-- A whole batch of commit units in one call (group commit): the one way the service writes to
-- the log. In order:
--  1. The advisory locks of the units decided on other streams, in one pass ordered by the lock's
--     key (hashtext of the stream), one lock a key: exclusive when a unit of the batch watches a
--     stream of that key, else shared (the streams a unit was decided on). They take no xid, so
--     the positions below are still the transaction's first write.
--  2. The positions of every event of the batch (a unit that does not commit leaves a gap).
--  3. The cached admissions (guards): each checked against the job's and tenant's heads, the
--     job's block marks and its request key, and the counts of the calls whose guards follow on
--     from the count moved.
--  4. Each unit, in the order given: refused 'broken' after a chained unit that did not commit,
--     'guard_failed' when its guard did not hold, 'conflict' when a stream it was decided on
--     moved or its own stream is not at its expected revision, 'row_taken' when one of its key
--     rows was made first by another writer (or a key it uses is gone); else its key rows and
--     events are written ('committed'), with their audit lines: each line takes the next place
--     (seq) of its tenant's log from the tenant's counter row (locked, in tenant order, before
--     any unit is applied: a tenant's places commit in order, contiguous, and a unit that does
--     not commit takes none) and its event's recorded time (at), spliced into its canonical
--     text. A held guard whose unit wrote nothing but a conflict is given back (its request is
--     decided again and counted then).
-- One row per guard ('guard', ordinal, 'held' or 'failed') and one per unit ('unit', index,
-- verdict, first position, last revision, and for a conflict the stream and its revision).
CREATE OR REPLACE FUNCTION custodian_commit(
  g_call text[], g_idx int[], g_tenant text[], g_job_stream text[], g_job_rev bigint[], g_blocks text[], g_marks text[],
  g_tenant_stream text[], g_tenant_rev bigint[], g_request_key text[],
  u_guard int[], u_after int[], u_watched boolean[], u_stream text[], u_expected text[], u_count int[],
  c_unit int[], c_stream text[], c_revision bigint[],
  e_id uuid[], e_type text[], e_version int[], e_data jsonb[], e_meta jsonb[],
  ku_unit int[], ku_id uuid[],
  ks_unit int[], ks_tenant text[], ks_subject text[], ks_wrapped bytea[],
  kd_unit int[], kd_id uuid[], kd_tenant text[], kd_plugin text[], kd_scope text[], kd_record_key text[], kd_owner text[],
  kd_wrapped bytea[], kd_kek bytea[],
  l_unit int[], l_event int[], l_tenant text[], l_kind text[], l_job text[], l_subject text[], l_epoch int[], l_refs jsonb[],
  l_head text[], l_mid text[], l_tail text[])
RETURNS TABLE (kind text, idx int, verdict text, first_position bigint, last_revision bigint, stream text, actual bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
  units int := coalesce(array_length(u_stream, 1), 0);
  total int := coalesce(array_length(e_id, 1), 0);
  first bigint;
  next_pos bigint;
  held int[];
  outcome text[] := array_fill(NULL::text, ARRAY[greatest(units, 1)]);
  offs int := 0;
  n int;
  s text;
  e text;
  last bigint;
  g int;
  moved_stream text;
  moved_rev bigint;
  wanted int;
  got int;
BEGIN
  -- 1. Advisory locks: one a key, in the order of the key (a volatile select list is evaluated after ORDER BY).
  PERFORM CASE WHEN l.watched THEN pg_advisory_xact_lock(7243004, l.key) ELSE pg_advisory_xact_lock_shared(7243004, l.key) END
    FROM (SELECT hashtext(w.s) AS key, bool_or(w.watched) AS watched
          FROM (SELECT u_stream[k] AS s, true AS watched FROM generate_series(1, units) AS k WHERE u_watched[k]
                UNION ALL SELECT x, false FROM unnest(c_stream) AS x) AS w
          GROUP BY 1) AS l
    ORDER BY l.key;

  -- 2. Positions, before anything writes.
  IF total > 0 THEN
    first := custodian_allocate_positions(total);
  END IF;
  next_pos := first;

  -- 2b. The audit counters of the batch's tenants, made and locked in tenant order.
  IF coalesce(array_length(l_unit, 1), 0) > 0 THEN
    INSERT INTO custodian_audit_sizes AS c (tenant, size)
      SELECT DISTINCT t, 0 FROM unnest(l_tenant) AS t ORDER BY 1 ON CONFLICT DO NOTHING;
    PERFORM 1 FROM custodian_audit_sizes c WHERE c.tenant = ANY(l_tenant) ORDER BY c.tenant FOR UPDATE;
  END IF;

  -- 3. Guards: checked, then each call's count moved to its highest index when they follow on.
  held := '{}';
  IF coalesce(array_length(g_call, 1), 0) > 0 THEN
  WITH gd AS (
    SELECT * FROM unnest(g_call, g_idx, g_tenant, g_job_stream, g_job_rev, g_blocks, g_marks, g_tenant_stream, g_tenant_rev, g_request_key)
      WITH ORDINALITY AS x(call, idx, tenant, job_stream, job_rev, blocks, marks, tenant_stream, tenant_rev, request_key, ord)),
  ok AS (
    SELECT gd.* FROM gd
    WHERE (SELECT st.revision FROM custodian_streams st WHERE st.stream = gd.job_stream) = gd.job_rev
      AND (SELECT st.revision FROM custodian_streams st WHERE st.stream = gd.tenant_stream) = gd.tenant_rev
      AND coalesce((SELECT string_agg(ev.revision || ':' || ev.xmin::text, ',' ORDER BY ev.revision) FROM custodian_events ev
                    WHERE ev.stream = gd.job_stream AND ev.revision = ANY(string_to_array(gd.blocks, ',')::bigint[])), '') = gd.marks
      AND (SELECT rk.request_key FROM rm_request_keys rk WHERE rk.tenant = gd.tenant AND rk.request_key = gd.request_key) IS NULL),
  span AS (SELECT ok.call, min(ok.idx) AS lo, max(ok.idx) AS hi, count(*) AS cnt FROM ok GROUP BY ok.call),
  moved AS (
    UPDATE custodian_call_requests r SET n = span.hi FROM span
    WHERE r.call = span.call AND r.n = span.lo - 1 AND span.hi - span.lo + 1 = span.cnt RETURNING r.call)
  SELECT coalesce(array_agg(ok.ord::int), '{}') INTO held FROM ok JOIN moved ON moved.call = ok.call;
  END IF;

  -- 4. The units.
  FOR k IN 1..units LOOP
    n := u_count[k];
    s := u_stream[k];
    e := u_expected[k];
    g := u_guard[k];
    moved_stream := NULL;
    moved_rev := NULL;
    last := NULL;
    kind := 'unit';
    idx := k;
    first_position := NULL;
    last_revision := NULL;
    stream := NULL;
    actual := NULL;
    IF u_after[k] IS NOT NULL AND outcome[u_after[k]] IS DISTINCT FROM 'committed' THEN
      verdict := 'broken';
    ELSIF g IS NOT NULL AND NOT g = ANY(held) THEN
      verdict := 'guard_failed';
    ELSE
      IF k = ANY(c_unit) THEN
        SELECT c.s, st.revision INTO moved_stream, moved_rev
          FROM unnest(c_unit, c_stream, c_revision) AS c(u, s, r) LEFT JOIN custodian_streams st ON st.stream = c.s
          WHERE c.u = k AND st.revision IS DISTINCT FROM c.r LIMIT 1;
      END IF;
      IF moved_stream IS NOT NULL THEN
        verdict := 'conflict';
        stream := moved_stream;
        actual := moved_rev;
      ELSE
        IF e = 'no_stream' THEN
          INSERT INTO custodian_streams AS st (stream, revision) VALUES (s, n - 1) ON CONFLICT DO NOTHING RETURNING st.revision INTO last;
        ELSIF e = 'any' THEN
          INSERT INTO custodian_streams AS st (stream, revision) VALUES (s, n - 1)
          ON CONFLICT (stream) DO UPDATE SET revision = st.revision + n RETURNING st.revision INTO last;
        ELSIF e = 'stream_exists' THEN
          UPDATE custodian_streams st SET revision = st.revision + n WHERE st.stream = s RETURNING st.revision INTO last;
        ELSE
          UPDATE custodian_streams st SET revision = st.revision + n WHERE st.stream = s AND st.revision = e::bigint RETURNING st.revision INTO last;
        END IF;
        IF last IS NULL THEN
          verdict := 'conflict';
          stream := s;
          actual := (SELECT st.revision FROM custodian_streams st WHERE st.stream = s);
        ELSE
          -- Its key rows, in lock order: keys it uses (locked: a shred waits), a subject's new key, new data keys.
          -- (Each statement runs only when the batch has rows of its kind: a log without a keystore plans none.)
          wanted := 0;
          got := 0;
          IF k = ANY(ku_unit) THEN
            SELECT count(*), count(dk.key_id) INTO wanted, got FROM unnest(ku_unit, ku_id) AS u(unit, id)
              LEFT JOIN LATERAL (SELECT d.key_id FROM custodian_data_keys d WHERE d.key_id = u.id FOR SHARE) AS dk ON true WHERE u.unit = k;
          END IF;
          IF wanted = got AND k = ANY(ks_unit) THEN
            WITH made AS (
              INSERT INTO custodian_subject_keys (tenant, subject, wrapped)
              SELECT r.tenant, r.subject, r.wrapped FROM unnest(ks_unit, ks_tenant, ks_subject, ks_wrapped) AS r(unit, tenant, subject, wrapped) WHERE r.unit = k
              ON CONFLICT DO NOTHING RETURNING 1)
            SELECT (SELECT count(*) FROM unnest(ks_unit) AS u WHERE u = k), (SELECT count(*) FROM made) INTO wanted, got;
          END IF;
          IF wanted = got AND k = ANY(kd_unit) THEN
            WITH made AS (
              INSERT INTO custodian_data_keys (key_id, tenant, plugin, scope, record_key, owner, wrapped)
              SELECT r.key_id, r.tenant, r.plugin, r.scope, r.record_key, r.owner, r.wrapped
              FROM unnest(kd_unit, kd_id, kd_tenant, kd_plugin, kd_scope, kd_record_key, kd_owner, kd_wrapped, kd_kek)
                AS r(unit, key_id, tenant, plugin, scope, record_key, owner, wrapped, kek)
              WHERE r.unit = k AND (r.owner = 'tenant' OR EXISTS (
                SELECT 1 FROM custodian_subject_keys sk WHERE sk.tenant = r.tenant AND r.owner = 'subject:' || sk.subject AND sk.wrapped = r.kek FOR SHARE))
              ON CONFLICT DO NOTHING RETURNING 1)
            SELECT (SELECT count(*) FROM unnest(kd_unit) AS u WHERE u = k), (SELECT count(*) FROM made) INTO wanted, got;
          END IF;
          IF wanted <> got THEN
            -- Nothing of it stays: its stream back where it was, the keys it made gone.
            IF last = n - 1 THEN
              DELETE FROM custodian_streams st WHERE st.stream = s;
            ELSE
              UPDATE custodian_streams st SET revision = st.revision - n WHERE st.stream = s;
            END IF;
            IF k = ANY(ks_unit) THEN
            DELETE FROM custodian_subject_keys sk USING unnest(ks_unit, ks_tenant, ks_subject, ks_wrapped) AS r(unit, tenant, subject, wrapped)
              WHERE r.unit = k AND sk.tenant = r.tenant AND sk.subject = r.subject AND sk.wrapped = r.wrapped;
            END IF;
            IF k = ANY(kd_unit) THEN
            DELETE FROM custodian_data_keys dk USING unnest(kd_unit, kd_id, kd_wrapped) AS r(unit, key_id, wrapped)
              WHERE r.unit = k AND dk.key_id = r.key_id AND dk.wrapped = r.wrapped;
            END IF;
            verdict := 'row_taken';
          ELSE
            INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata)
            SELECT next_pos + i - 1, pg_current_xact_id(), s, last - n + i, e_id[offs + i], e_type[offs + i], e_version[offs + i], e_data[offs + i], e_meta[offs + i]
            FROM generate_series(1, n) AS i;
            IF k = ANY(l_unit) THEN
              WITH mine AS (
                SELECT l.* FROM unnest(l_unit, l_event, l_tenant, l_kind, l_job, l_subject, l_epoch, l_refs, l_head, l_mid, l_tail)
                  WITH ORDINALITY AS l(unit, ev, tenant, kind, job, subject, epoch, refs, head, mid, tail, ord) WHERE l.unit = k),
              counts AS (SELECT mine.tenant, count(*) AS n FROM mine GROUP BY mine.tenant),
              moved AS (
                UPDATE custodian_audit_sizes c SET size = c.size + counts.n FROM counts WHERE c.tenant = counts.tenant
                RETURNING c.tenant, c.size - counts.n AS base),
              placed AS (
                SELECT mine.*, moved.base + row_number() OVER (PARTITION BY mine.tenant ORDER BY mine.ord) - 1 AS seq,
                       (extract(epoch from ev.recorded_at) * 1000)::bigint AS at, ev.position
                FROM mine JOIN moved ON moved.tenant = mine.tenant JOIN custodian_events ev ON ev.position = next_pos + mine.ev)
              INSERT INTO custodian_audit_lines (tenant, seq, at, kind, job, subject, epoch, record_refs, line, position)
              SELECT p.tenant, p.seq, p.at, p.kind, p.job, p.subject, p.epoch,
                     ARRAY(SELECT jsonb_array_elements_text(p.refs)), p.head || p.at || p.mid || p.seq || p.tail, p.position
              FROM placed p;
            END IF;
            verdict := 'committed';
            first_position := next_pos;
            last_revision := last;
          END IF;
        END IF;
      END IF;
    END IF;
    -- A held guard whose unit wrote nothing, other than for a conflict on its own decision, is given back.
    IF g IS NOT NULL AND g = ANY(held) AND verdict IN ('broken', 'row_taken') THEN
      UPDATE custodian_call_requests r SET n = r.n - 1 WHERE r.call = g_call[g] AND r.n = g_idx[g];
      IF NOT FOUND THEN
        RAISE EXCEPTION 'custodian_commit: the count of call % cannot be given back alone', g_call[g];
      END IF;
      held := array_remove(held, g);
    END IF;
    outcome[k] := verdict;
    IF n > 0 THEN
      next_pos := next_pos + n;
    END IF;
    offs := offs + n;
    RETURN NEXT;
  END LOOP;

  kind := 'guard';
  first_position := NULL;
  last_revision := NULL;
  stream := NULL;
  actual := NULL;
  FOR o IN 1..coalesce(array_length(g_call, 1), 0) LOOP
    idx := o;
    verdict := CASE WHEN o = ANY(held) THEN 'held' ELSE 'failed' END;
    RETURN NEXT;
  END LOOP;

  IF EXISTS (SELECT 1 FROM unnest(outcome) AS v WHERE v = 'committed') THEN
    PERFORM pg_notify('custodian_events', (next_pos - 1)::text);
  END IF;
END $$;
