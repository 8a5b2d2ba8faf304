import type { AdmissionGuard } from '../domain/ports/admission-guard.ts';

/**
 * The guards of one batch in one statement: which of them (by ordinal) hold, with each call's
 * count moved to its highest index when its guards' indexes follow on from the count.
 */
export const GUARD_SQL = `WITH g AS (
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
    UPDATE custodian_call_requests r SET n = span.hi FROM span
    WHERE r.call = span.call AND r.n = span.lo - 1 AND span.hi - span.lo + 1 = span.n RETURNING r.call)
  SELECT ok.ord FROM ok JOIN moved ON moved.call = ok.call`;

export const guardParams = (guards: readonly AdmissionGuard[]) => [
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
];
