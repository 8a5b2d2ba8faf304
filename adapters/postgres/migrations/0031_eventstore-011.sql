-- custodian_commit takes its batch as one JSON document, and reads every table by its indexes.
--
-- One document instead of 50 parallel arrays: each unit carries its own events, conditions, key
-- rows and audit lines, so the function reads a unit's parts from the unit (no offsets into
-- batch-wide arrays, no unit column on every row), and the service serializes the batch once
-- (the driver escaped every element of 50 arrays, about 3% of its CPU a put).
--
-- Every table by its indexes, whatever its size when the session planned: the statements keep
-- generic plans (plan_cache_mode; custom plans planned every unit's statements on every call),
-- made once a session and kept until an ANALYZE, and a plan made while a table was small scanned
-- it whole on every call while it grew (the streams, the calls, the request keys: each grows by a
-- row a put or a call). The request key check, written `key IS NULL OR NOT EXISTS (…)`, was
-- planned as a hashed subplan: a scan of every key ever written, once a batch (0.77 ms a batch at
-- 4,000 keys, bench/profile-put.ts). It is a scalar subquery now, never hashed, and the function
-- plans with enable_seqscan off: each of its lookups is by key, and an index probe costs the same
-- at any size.
--
-- A whole batch of commit units in one call (group commit): the one way the service writes to
-- the log. The batch is {"guards": […], "units": […]}, as `commitParams` builds it
-- (adapters/eventstore/postgres-group-commit.ts); the events' data travel beside it, one `json`
-- array in the batch's order (`bodies`), each made a jsonb value of its own: a jsonb value holds
-- at most 256 MB in all, and one append (an import's scope) may pass that while each event fits.
-- In order: the advisory locks of the units decided on other streams (one pass, by key); the positions of every event (a unit that does
-- not commit leaves a gap) and the audit counters of the batch's tenants, locked in tenant
-- order; the guards, checked, and the counts of the calls whose guards follow on moved; then
-- each unit, in the order given, judged and, when nothing refuses it, written with its key rows
-- and audit lines (each line takes the next place of its tenant's log and its event's recorded
-- time). One row per unit ('unit', index, verdict, first position, last revision, and for a
-- conflict the stream and its revision), then one per guard ('guard', ordinal, 'held' or
-- 'failed'); the verdicts: 'broken' after a chained unit that did not commit, 'guard_failed',
-- 'conflict' (a stream it was decided on moved, or its own is not at its expected revision),
-- 'row_taken' (a key row another writer made first, or a key it uses is gone), 'committed'.
-- A held guard whose unit wrote nothing but a conflict is given back.
DROP FUNCTION custodian_commit(
  text[], int[], text[], text[], bigint[], text[], text[], text[], bigint[], text[], int[], int[], boolean[], text[], text[], int[],
  int[], text[], bigint[], uuid[], text[], int[], jsonb[], jsonb[], int[], uuid[], int[], text[], text[], bytea[],
  int[], uuid[], text[], text[], text[], text[], text[], bytea[], bytea[],
  int[], int[], text[], text[], text[], text[], int[], jsonb[], text[], text[], text[]);
CREATE FUNCTION custodian_commit(batch jsonb, bodies json)
RETURNS TABLE (kind text, idx int, verdict text, first_position bigint, last_revision bigint, stream text, actual bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
  units int := jsonb_array_length(batch->'units');
  total int := (SELECT coalesce(sum(jsonb_array_length(x->'events')), 0) FROM jsonb_array_elements(batch->'units') AS x);
  tenants text[] := ARRAY(SELECT DISTINCT l->>'tenant' FROM jsonb_array_elements(batch->'units') AS x, jsonb_array_elements(x->'lines') AS l ORDER BY 1);
  -- (A function scan answers its rows in order: no sort, which would spill a large batch's data to disk.)
  e_data jsonb[] := ARRAY(SELECT b::jsonb FROM json_array_elements(bodies) AS b);
  offs int := 0;
  next_pos bigint;
  held int[] := '{}';
  outcome text[] := array_fill(NULL::text, ARRAY[greatest(units, 1)]);
  u jsonb;
  n int;
  s text;
  e text;
  last bigint;
  g int;
  a int;
  moved_stream text;
  moved_rev bigint;
  wanted int;
  got int;
  kr record;
  dr record;
BEGIN
  -- 1. Advisory locks: one a key, in the order of the key (a volatile select list is evaluated after ORDER BY).
  PERFORM CASE WHEN l.watched THEN pg_advisory_xact_lock(7243004, l.key) ELSE pg_advisory_xact_lock_shared(7243004, l.key) END
    FROM (SELECT hashtext(w.s) AS key, bool_or(w.watched) AS watched
          FROM (SELECT x->>'stream' AS s, true AS watched FROM jsonb_array_elements(batch->'units') AS x WHERE (x->>'watched')::boolean
                UNION ALL SELECT c->>'stream', false FROM jsonb_array_elements(batch->'units') AS x, jsonb_array_elements(x->'unmoved') AS c) AS w
          GROUP BY 1) AS l
    ORDER BY l.key;

  -- 2. Positions, before anything writes; then the audit counters of the batch's tenants, made and locked in tenant order.
  IF total > 0 THEN
    next_pos := custodian_allocate_positions(total);
  END IF;
  IF cardinality(tenants) > 0 THEN
    INSERT INTO custodian_audit_sizes AS c (tenant, size) SELECT t, 0 FROM unnest(tenants) AS t ON CONFLICT DO NOTHING;
    PERFORM 1 FROM custodian_audit_sizes c WHERE c.tenant = ANY(tenants) ORDER BY c.tenant FOR UPDATE;
  END IF;

  -- 3. Guards: checked, then each call's count moved to its highest index when they follow on.
  IF jsonb_array_length(batch->'guards') > 0 THEN
  WITH gd AS (
    SELECT * FROM ROWS FROM (jsonb_to_recordset(batch->'guards') AS (call text, idx int, tenant text, job_stream text, job_rev bigint,
      blocks bigint[], marks text, tenant_stream text, tenant_rev bigint, request_key text))
      WITH ORDINALITY AS x(call, idx, tenant, job_stream, job_rev, blocks, marks, tenant_stream, tenant_rev, request_key, ord)),
  ok AS (
    SELECT gd.* FROM gd
    WHERE (SELECT st.revision FROM custodian_streams st WHERE st.stream = gd.job_stream) = gd.job_rev
      AND (SELECT st.revision FROM custodian_streams st WHERE st.stream = gd.tenant_stream) = gd.tenant_rev
      AND coalesce((SELECT string_agg(ev.revision || ':' || ev.xmin::text, ',' ORDER BY ev.revision) FROM custodian_events ev
                    WHERE ev.stream = gd.job_stream AND ev.revision = ANY(gd.blocks)), '') = gd.marks
      AND (SELECT rk.request_key FROM rm_request_keys rk WHERE rk.tenant = gd.tenant AND rk.request_key = gd.request_key) IS NULL),
  span AS (SELECT ok.call, min(ok.idx) AS lo, max(ok.idx) AS hi, count(*) AS cnt FROM ok GROUP BY ok.call),
  moved AS (
    UPDATE custodian_call_requests r SET n = span.hi FROM span
    WHERE r.call = span.call AND r.n = span.lo - 1 AND span.hi - span.lo + 1 = span.cnt RETURNING r.call)
  SELECT coalesce(array_agg(ok.ord::int), '{}') INTO held FROM ok JOIN moved ON moved.call = ok.call;
  END IF;

  -- 4. The units.
  FOR k IN 1..units LOOP
    u := batch->'units'->(k - 1);
    n := jsonb_array_length(u->'events');
    s := u->>'stream';
    e := u->>'expected';
    g := (u->>'guard')::int;
    a := (u->>'after')::int;
    moved_stream := NULL;
    moved_rev := NULL;
    last := NULL;
    kind := 'unit';
    idx := k;
    first_position := NULL;
    last_revision := NULL;
    stream := NULL;
    actual := NULL;
    IF a IS NOT NULL AND outcome[a] IS DISTINCT FROM 'committed' THEN
      verdict := 'broken';
    ELSIF g IS NOT NULL AND NOT g = ANY(held) THEN
      verdict := 'guard_failed';
    ELSE
      IF jsonb_array_length(u->'unmoved') > 0 THEN
        SELECT c.stream, st.revision INTO moved_stream, moved_rev
          FROM jsonb_to_recordset(u->'unmoved') AS c(stream text, revision bigint) LEFT JOIN custodian_streams st ON st.stream = c.stream
          WHERE st.revision IS DISTINCT FROM c.revision LIMIT 1;
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
          -- (Each statement runs only when the unit has rows of its kind: a log without a keystore plans none.)
          wanted := 0;
          got := 0;
          IF jsonb_array_length(u->'used') > 0 THEN
            SELECT count(*), count(dk.key_id) INTO wanted, got FROM jsonb_array_elements_text(u->'used') AS x(id)
              LEFT JOIN LATERAL (SELECT d.key_id FROM custodian_data_keys d WHERE d.key_id = x.id::uuid FOR SHARE) AS dk ON true;
          END IF;
          IF wanted = got AND jsonb_array_length(u->'subject_keys') > 0 THEN
            WITH made AS (
              INSERT INTO custodian_subject_keys (tenant, subject, wrapped)
              SELECT r.tenant, r.subject, decode(r.wrapped, 'base64')
              FROM jsonb_to_recordset(u->'subject_keys') AS r(tenant text, subject text, wrapped text)
              ON CONFLICT DO NOTHING RETURNING 1)
            SELECT jsonb_array_length(u->'subject_keys'), (SELECT count(*) FROM made) INTO wanted, got;
          END IF;
          IF wanted = got AND jsonb_array_length(u->'data_keys') > 0 THEN
            WITH made AS (
              INSERT INTO custodian_data_keys (key_id, tenant, plugin, scope, record_key, owner, wrapped)
              SELECT r.id, r.tenant, r.plugin, r.scope, r.record_key, r.owner, decode(r.wrapped, 'base64')
              FROM jsonb_to_recordset(u->'data_keys')
                AS r(id uuid, tenant text, plugin text, scope text, record_key text, owner text, wrapped text, kek text)
              WHERE r.owner = 'tenant' OR EXISTS (
                -- By its tenant and subject (the owner past 'subject:'): not among every key of the tenant.
                SELECT 1 FROM custodian_subject_keys sk
                WHERE sk.tenant = r.tenant AND sk.subject = substr(r.owner, 9) AND r.owner = 'subject:' || sk.subject
                  AND sk.wrapped = decode(r.kek, 'base64') FOR SHARE)
              ON CONFLICT DO NOTHING RETURNING 1)
            SELECT jsonb_array_length(u->'data_keys'), (SELECT count(*) FROM made) INTO wanted, got;
          END IF;
          IF wanted <> got THEN
            -- Nothing of it stays: its stream back where it was, the keys it made gone.
            IF last = n - 1 THEN
              DELETE FROM custodian_streams st WHERE st.stream = s;
            ELSE
              UPDATE custodian_streams st SET revision = st.revision - n WHERE st.stream = s;
            END IF;
            -- Each by its key, one at a time: a join is planned once a session, while the tables
            -- may be small, as a hash of every key (and this path is rare: a race with a shred).
            FOR kr IN SELECT * FROM jsonb_to_recordset(u->'subject_keys') AS x(tenant text, subject text, wrapped text) LOOP
              DELETE FROM custodian_subject_keys sk WHERE sk.tenant = kr.tenant AND sk.subject = kr.subject AND sk.wrapped = decode(kr.wrapped, 'base64');
            END LOOP;
            FOR dr IN SELECT * FROM jsonb_to_recordset(u->'data_keys') AS x(id uuid, wrapped text) LOOP
              DELETE FROM custodian_data_keys dk WHERE dk.key_id = dr.id AND dk.wrapped = decode(dr.wrapped, 'base64');
            END LOOP;
            verdict := 'row_taken';
          ELSE
            INSERT INTO custodian_events (position, tx_id, stream, revision, event_id, type, schema_version, data, metadata)
            SELECT next_pos + x.i - 1, pg_current_xact_id(), s, last - n + x.i, (x.v->>'id')::uuid, x.v->>'type', (x.v->>'version')::int,
                   e_data[offs + x.i], x.v->'meta'
            FROM jsonb_array_elements(u->'events') WITH ORDINALITY AS x(v, i);
            IF jsonb_array_length(u->'lines') > 0 THEN
              WITH mine AS (
                SELECT * FROM ROWS FROM (jsonb_to_recordset(u->'lines') AS (event int, tenant text, kind text, job text, subject text,
                  epoch int, refs jsonb, head text, mid text, tail text))
                  WITH ORDINALITY AS l(ev, tenant, kind, job, subject, epoch, refs, head, mid, tail, ord)),
              counts AS (SELECT mine.tenant, count(*) AS n FROM mine GROUP BY mine.tenant),
              moved AS (
                UPDATE custodian_audit_sizes c SET size = c.size + counts.n FROM counts WHERE c.tenant = counts.tenant
                RETURNING c.tenant, c.size - counts.n AS base),
              placed AS (
                -- Each line's event by its position (a probe: LIMIT keeps it from being planned as a join, which,
                -- planned while the log was small, hashed every event).
                SELECT mine.*, moved.base + row_number() OVER (PARTITION BY mine.tenant ORDER BY mine.ord) - 1 AS seq,
                       (extract(epoch from ev.recorded_at) * 1000)::bigint AS at, ev.position
                FROM mine JOIN moved ON moved.tenant = mine.tenant
                  CROSS JOIN LATERAL (SELECT e.recorded_at, e.position FROM custodian_events e WHERE e.position = next_pos + mine.ev LIMIT 1) AS ev)
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
      UPDATE custodian_call_requests r SET n = r.n - 1
        WHERE r.call = batch->'guards'->(g - 1)->>'call' AND r.n = (batch->'guards'->(g - 1)->>'idx')::int;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'custodian_commit: the count of call % cannot be given back alone', batch->'guards'->(g - 1)->>'call';
      END IF;
      held := array_remove(held, g);
    END IF;
    outcome[k] := verdict;
    next_pos := next_pos + n;
    offs := offs + n;
    RETURN NEXT;
  END LOOP;

  kind := 'guard';
  first_position := NULL;
  last_revision := NULL;
  stream := NULL;
  actual := NULL;
  FOR o IN 1..jsonb_array_length(batch->'guards') LOOP
    idx := o;
    verdict := CASE WHEN o = ANY(held) THEN 'held' ELSE 'failed' END;
    RETURN NEXT;
  END LOOP;

  IF 'committed' = ANY(outcome) THEN
    PERFORM pg_notify('custodian_events', (next_pos - 1)::text);
  END IF;
END $$;
