import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as E from 'fp-ts/lib/Either.js';
import type { z } from 'zod';
import type { RecordCommands } from '../../../commands/records.ts';
import type { Clock } from '../../../domain/ports/clock.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import type { RequestCounter } from '../../../domain/ports/request-counter.ts';
import { MAX_BODY_BYTES, MAX_REQUESTS_PER_CALL } from '../../../domain/records/rules.ts';
import { refusal, type Refusal } from '../../../domain/shared/refusal.ts';
import type { ProjectionRunner } from '../../../projections/runner.ts';
import { callContext, type CallContext } from '../../../queries/call-context.ts';
import type { RecordQueries, Shown } from '../../../queries/records.ts';
import { RecordsRequest } from '../records-schemas.ts';
import type { Fence } from '../../../queries/fence.ts';
import { statusOf } from '../status.ts';
import { admissionOf, admit } from '../admitted.ts';
import { BadBody } from '../json-body.ts';
import { closeIfBodyPending, TICKET } from '../route-auth.ts';
import { MAX_RECORDS_REQUEST_BYTES } from '../body-limits.ts';

export interface RecordsDeps {
  readonly db: ReadModelStore;
  readonly counter: RequestCounter;
  readonly records: RecordCommands;
  readonly queries: RecordQueries;
  readonly audit: (ctx: CallContext, op: 'get' | 'history' | 'list', shown: Shown) => Promise<number | null>;
  readonly runner: ProjectionRunner;
  readonly clock: Clock;
  /** The fence, decided on the job's stream in the event log (queries/fence.ts). */
  readonly fence: Fence;
}

/**
 * The fence (SPEC §6): a stopped job, a job past its expiry, a chain that does not verify,
 * or a chain that a revocation since its epoch reaches, gets nothing. Decided on the job's
 * stream in the log; the answer is the call's context as the log has it, or null.
 */
const fenced = (deps: RecordsDeps, found: CallContext, ticket: string) => deps.fence.admit(found, ticket);

const invalidOf = (error: z.ZodError): Refusal => {
  const issue = error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') return refusal('invalid', { field: [...path, issue.keys[0]].join('.'), reason: 'unknown field' });
  if (issue.code === 'invalid_union' && path.length === 0) return refusal('invalid', { field: 'op', reason: 'op is put, get, history or list' });
  return refusal('invalid', { field: path.join('.') || 'body', reason: issue.message });
};

/**
 * POST /v1/records: checks 1–3 (ticket and fence, request count, shape) for every op, in
 * that order, then the op. Every answer, refusal or not, names the job's purpose.
 */
export const recordsRoutes = (app: FastifyInstance, deps: RecordsDeps) => {
  const send = (reply: FastifyReply, purpose: string, result: E.Either<Refusal, object>) =>
    E.isLeft(result)
      ? reply.code(statusOf(result.left)).send({ ...result.left, job_purpose: purpose })
      : reply.code(200).send({ ...result.right, job_purpose: purpose });

  /**
   * Checks 1 and 2 run in `onRequest`, before the body is read: an unknown ticket is
   * answered without reading an upload, and a body too large (413) or not JSON (415) is
   * answered after the ticket, with the job's purpose, and counts.
   */
  const gate = async (req: FastifyRequest, reply: FastifyReply) => {
    const ticket = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const found = ticket ? await callContext(deps.db, ticket) : null;
    if (!found || !ticket) {
      closeIfBodyPending(req, reply);
      return send(reply, '', E.left(refusal('ticket')));
    }
    admit(req, { purpose: found.purpose });
    const ctx = await fenced(deps, found, ticket);
    if (!ctx) {
      closeIfBodyPending(req, reply);
      return send(reply, found.purpose, E.left(refusal('revoked')));
    }

    const index = await deps.counter.next(ctx.call);
    if (index > MAX_REQUESTS_PER_CALL) {
      closeIfBodyPending(req, reply);
      return send(reply, ctx.purpose, E.left(refusal('requests', { limit: MAX_REQUESTS_PER_CALL })));
    }
    admit(req, { purpose: ctx.purpose, admitted: { ctx, index } });
  };

  app.post('/v1/records', {
    config: TICKET,
    bodyLimit: MAX_RECORDS_REQUEST_BYTES,
    onRequest: gate,
    schema: { tags: ['records'], summary: 'put, get, history and list plugin records (Bearer <ticket>)' },
  }, async (req, reply) => {
    const admission = admissionOf<CallContext>(req)?.admitted;
    // The gate answers every request it does not admit; this is the deny-by-default backstop.
    if (!admission) return send(reply, '', E.left(refusal('ticket')));
    const { ctx, index } = admission;

    if (req.body instanceof BadBody) return send(reply, ctx.purpose, E.left(req.body.refusal));
    const parsed = RecordsRequest.safeParse(req.body);
    if (!parsed.success) return send(reply, ctx.purpose, E.left(invalidOf(parsed.error)));
    const request = parsed.data;

    switch (request.op) {
      case 'put': {
        const bytes = Buffer.byteLength(JSON.stringify(request.body));
        if (bytes > MAX_BODY_BYTES)
          return send(reply, ctx.purpose, E.left(refusal('invalid', { field: 'body', reason: `body is ${bytes} bytes serialized; at most ${MAX_BODY_BYTES}` })));
        const written = await deps.records.put(ctx, index, request);
        if (E.isRight(written) && written.right.position !== null) await deps.runner.waitFor(written.right.position);
        return send(reply, ctx.purpose, E.map(({ version, scope, key }: { version: number; scope: string; key: string }) => ({ version, scope, key }))(written));
      }
      case 'get':
      case 'history':
      case 'list': {
        const read =
          request.op === 'get'
            ? await deps.queries.get(ctx, request.scope, request.record_key, request.version ?? 0)
            : request.op === 'history'
              ? await deps.queries.history(ctx, request.scope, request.record_key)
              : await deps.queries.list(ctx, request.list ?? {});
        const joined = await deps.audit(ctx, request.op, read.shown);
        // Joined labels must be on the job before this call's next request is checked.
        if (joined !== null) await deps.runner.waitFor(joined);
        return send(reply, ctx.purpose, E.right(read.answer));
      }
    }
  });
};
