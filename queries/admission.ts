import { ticketHash } from '../domain/shared/hash.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import { CALL_CONTEXT_SELECT, contextOf, type CallContext, type CallContextRow } from './call-context.ts';

/** The job's and tenant's log heads as one statement read them, for the fence to skip its own reads. */
export interface LogHeads {
  readonly jobRevision: number;
  /** Marks (`revision:xmin`) of the block revisions asked for, in the fence's format. */
  readonly blockRevisions: readonly number[];
  readonly marks: string;
  readonly tenantRevision: number;
  /**
   * Whether every read model the context came from (calls, jobs, tenants and plugins,
   * revocations) had applied the latest event of the job's and the tenant's streams when it was
   * read. Only such a context may be reused: the guard proves those streams have not moved
   * since, but not that the models had caught up with them (a PATCH answered a moment ago).
   */
  readonly modelsCurrent: boolean;
}

export interface Admission {
  readonly found: CallContext;
  /** This request's 1-based index in its call (the request counter, moved by the same statement). */
  readonly index: number;
  /** Null when the log is not in this database (memory, EventStoreDB): the fence reads it itself. */
  readonly heads: LogHeads | null;
  /** The write this request's key already made, read for the read model's idempotency key (check 5). */
  readonly prior: { readonly idempotency_key: string; readonly write: { scope: string; key: string; version: number } | null };
}

interface Row extends CallContextRow {
  request_index: number;
  job_revision_now: string | null;
  job_marks: string | null;
  tenant_revision_now: string | null;
  models_current: boolean | null;
  prior_scope: string | null;
  prior_key: string | null;
  prior_version: number | null;
}

const LOG_HEADS = `,
  (SELECT revision FROM custodian_streams WHERE stream = ctx.job_stream) AS job_revision_now,
  (SELECT string_agg(e.revision || ':' || e.xmin::text, ',' ORDER BY e.revision) FROM custodian_events e
     WHERE e.stream = ctx.job_stream AND e.revision = ANY($2::bigint[])) AS job_marks,
  (SELECT revision FROM custodian_streams WHERE stream = ctx.tenant_stream) AS tenant_revision_now,
  (SELECT min(c.position) FROM custodian_checkpoints c WHERE c.name = ANY(ARRAY['calls', 'jobs', 'tenants', 'revocations']) HAVING count(*) = 4)
    >= (SELECT coalesce(max(e.position), 0) FROM custodian_streams s JOIN custodian_events e ON e.stream = s.stream AND e.revision = s.revision
        WHERE s.stream IN (ctx.job_stream, ctx.tenant_stream)) AS models_current`;

/**
 * Checks 1 and 2 in one statement (one commit): the call behind the ticket, its request count
 * moved, the write its request key already made, and — when the log lives in this database —
 * the job stream's and tenant stream's heads and the job's block marks, so the fence verifies
 * a job that has not moved with no read of its own. A request whose ticket finds no live call
 * counts nothing; one the fence then refuses has counted (its call can never act again).
 */
export const admitTicket = async (sql: Sql, ticket: string, blockRevisions: readonly number[], logHere: boolean): Promise<Admission | null> => {
  const { rows } = await sql.query<Row>(
    `WITH ctx AS (${CALL_CONTEXT_SELECT} LIMIT 1),
     counted AS (
       INSERT INTO custodian_call_requests (call, n) SELECT call, 1 FROM ctx
       ON CONFLICT (call) DO UPDATE SET n = custodian_call_requests.n + 1 RETURNING n)
     SELECT ctx.*, counted.n AS request_index, k.scope AS prior_scope, k.key AS prior_key, k.version AS prior_version
       ${logHere ? LOG_HEADS : ''}
     FROM ctx CROSS JOIN counted
     LEFT JOIN rm_request_keys k ON k.tenant = ctx.tenant AND k.request_key = ctx.idempotency_key || '#' || counted.n`,
    logHere ? [ticketHash(ticket), blockRevisions] : [ticketHash(ticket)],
  );
  const row = rows[0];
  if (!row) return null;
  const { request_index, job_revision_now, job_marks, tenant_revision_now, models_current, prior_scope, prior_key, prior_version, ...context } = row;
  return {
    found: contextOf(context),
    index: Number(request_index),
    heads: logHere
      ? {
          jobRevision: job_revision_now === null ? -1 : Number(job_revision_now),
          blockRevisions,
          marks: job_marks ?? '',
          tenantRevision: tenant_revision_now === null ? -1 : Number(tenant_revision_now),
          modelsCurrent: models_current === true,
        }
      : null,
    prior: {
      idempotency_key: context.idempotency_key,
      write: prior_scope === null || prior_key === null || prior_version === null ? null : { scope: prior_scope, key: prior_key, version: prior_version },
    },
  };
};
