import type { AdmissionGuard } from '../domain/ports/admission-guard.ts';

/**
 * A batch's guards and appends in one statement: the checks of each guard, each call's count
 * moved to its highest index when its guards' indexes follow on from the count, and the
 * appends of the guards that held (and those with none) through `custodian_append_guarded`.
 * One row always, and one per append made: the ordinals of the guards that held and the
 * append's result.
 */
export const GUARDED_APPEND = (() => {
  // $21: the batch's first position when its transaction took them with its BEGIN; else they are
  // taken here ($22 of them) before any write (\`moved\` joins \`alloc\`; rows are written only
  // in a transaction, which took them already).
  return `WITH alloc AS MATERIALIZED (
    SELECT coalesce($21::bigint, CASE WHEN $22::int > 0 THEN custodian_allocate_positions($22::int) END) AS first),
  g AS (
    SELECT * FROM unnest($1::int[], $2::text[], $3::int[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[])
      AS g(ord, call, idx, tenant, job_stream, job_rev, blocks, marks, tenant_stream, tenant_rev, request_key)),
  ok AS (
    SELECT g.* FROM g
    WHERE (SELECT s.revision FROM custodian_streams s WHERE s.stream = g.job_stream) = g.job_rev
      AND (SELECT s.revision FROM custodian_streams s WHERE s.stream = g.tenant_stream) = g.tenant_rev
      AND coalesce((SELECT string_agg(e.revision || ':' || e.xmin::text, ',' ORDER BY e.revision) FROM custodian_events e
                    WHERE e.stream = g.job_stream AND e.revision = ANY(string_to_array(g.blocks, ',')::bigint[])), '') = g.marks
      AND (g.request_key IS NULL OR NOT EXISTS (SELECT 1 FROM rm_request_keys k WHERE k.tenant = g.tenant AND k.request_key = g.request_key))),
  span AS (SELECT call, min(idx) AS lo, max(idx) AS hi, count(*) AS n FROM ok GROUP BY call),
  moved AS (
    UPDATE custodian_call_requests r SET n = span.hi FROM span CROSS JOIN alloc
    WHERE r.call = span.call AND r.n = span.lo - 1 AND span.hi - span.lo + 1 = span.n RETURNING r.call),
  held AS (SELECT coalesce(array_agg(ok.ord), '{}') AS ords FROM ok JOIN moved ON moved.call = ok.call)
  SELECT held.ords AS held,
    a.idx, a.ok, a.first_position, a.last_revision, a.actual
  FROM held CROSS JOIN alloc LEFT JOIN LATERAL custodian_append_guarded(alloc.first, held.ords, $12::int[], $13::text[], $14::text[], $15::int[], $16::uuid[],
    $17::text[], $18::int[], $19::jsonb[], $20::jsonb[]) AS a ON true`;
})();

/** An append as the guarded statement takes it: the ordinal of its guard among the batch's, or null. */
export interface GuardedAppend {
  readonly guard: number | null;
  readonly stream: string;
  readonly expected: string;
  readonly events: readonly { event_id: string; type: string; schema_version: number; data: unknown; metadata: unknown }[];
}

/**
 * The parameters of `GUARDED_APPEND`, for `guards` (in ordinal order) and `appends`;
 * `first`: the batch's first position if its transaction took them.
 */
export const guardedAppendParams = (guards: readonly AdmissionGuard[], appends: readonly GuardedAppend[], first: number | null): unknown[] => {
  const events = appends.flatMap((a) => a.events);
  return [
    guards.map((_, i) => i),
    guards.map((g) => g.call),
    guards.map((g) => g.index),
    guards.map((g) => g.tenant),
    guards.map((g) => g.jobStream),
    guards.map((g) => g.jobRevision),
    guards.map((g) => g.blockRevisions.join(',')),
    guards.map((g) => g.marks),
    guards.map((g) => g.tenantStream),
    guards.map((g) => g.tenantRevision),
    guards.map((g) => g.requestKey),
    appends.map((a) => a.guard),
    appends.map((a) => a.stream),
    appends.map((a) => a.expected),
    appends.map((a) => a.events.length),
    events.map((e) => e.event_id),
    events.map((e) => e.type),
    events.map((e) => e.schema_version),
    events.map((e) => JSON.stringify(e.data)),
    events.map((e) => JSON.stringify(e.metadata)),
    first,
    events.length,
  ];
};
