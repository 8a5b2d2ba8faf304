import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as E from 'fp-ts/lib/Either.js';
import type { z } from 'zod';
import type { RecordsOp, RecordsService } from '../../../commands/records-service.ts';
import { refusal, type Refusal } from '../../../domain/shared/refusal.ts';
import { RecordsRequest, RecordsRequestOfParsedJson } from '../records-schemas.ts';
import { statusOf } from '../status.ts';
import { BadBody } from '../json-body.ts';
import { TICKET } from '../route-auth.ts';
import { admittedCall, ticketGate } from '../ticket-gate.ts';
import { MAX_RECORDS_REQUEST_BYTES } from '../body-limits.ts';
import { fitRecordsAnswer, splitRecordsBody } from '../fitted.ts';
import { refusalOfIssue, type SchemaIssue } from '../schema-refusal.ts';
import { bodyCheckedByHandler, ok, RecordsAnswer, refusals } from '../responses.ts';

/** The records API is a service (commands/records-service.ts); this route parses, calls and answers. */
export interface RecordsDeps {
  readonly service: RecordsService;
}

const invalidOf = (error: z.ZodError, body: unknown): Refusal => {
  const issue = error.issues[0]!;
  if (issue.code === 'invalid_union' && issue.path.length === 0 && typeof body === 'object' && body !== null && !Array.isArray(body))
    return refusal('invalid', { field: 'op', reason: 'op is put, get, history or list', message: 'op is put, get, history or list: send one of them' });
  return refusalOfIssue(issue as SchemaIssue, RecordsRequestOfParsedJson, body);
};

/** Check 4 names no reason of its own: the scope asked for, and which this call may use. */
const explained = (r: Refusal, op: E.Either<Refusal, RecordsOp>, agent: string | undefined): Refusal => {
  if (r.error !== 'scope' || r.reason !== undefined || E.isLeft(op) || !('scope' in op.right)) return r;
  const own = agent ? `agent:${agent}` : 'agent:<agent>';
  return {
    ...r,
    field: 'scope',
    reason: `this call may not use scope ${op.right.scope}: its own agent scope is ${own}, beside the scope kinds its plugin declares`,
  };
};

/** The body as check 3 sees it: the request, or why it is not one (the body is JSON.parse's, through the hygiene walk). */
const shapeOf = (body: unknown): E.Either<Refusal, RecordsOp> => {
  if (body instanceof BadBody) return E.left(body.refusal);
  const parsed = RecordsRequestOfParsedJson.safeParse(body);
  return parsed.success ? E.right(parsed.data) : E.left(invalidOf(parsed.error, body));
};

/**
 * A request whose body the framework will hand to the handler (JSON, declared length within
 * the limit): only such a request may be admitted from the call-context cache, whose count is
 * committed by the handler. Anything else (a 413 or 415 in the making) is admitted in full.
 */
const reachesHandler = (req: FastifyRequest) => {
  const length = Number(req.headers['content-length']);
  return /^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '') && Number.isSafeInteger(length) && length <= MAX_RECORDS_REQUEST_BYTES;
};

/** POST /v1/records. Every answer, refusal or not, names the job's purpose. */
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
  const gate = ticketGate(deps.service, reachesHandler);

  app.post(
    '/v1/records',
    {
      config: TICKET,
      bodyLimit: MAX_RECORDS_REQUEST_BYTES,
      onRequest: gate,
      validatorCompiler: bodyCheckedByHandler,
      schema: {
        tags: ['records'],
        summary: 'put, get, history and list plugin records (Bearer <ticket>)',
        security: [{ ticket: [] }],
        body: RecordsRequest,
        response: { ...ok(RecordsAnswer, 'the answer of the op; every answer, refusal or not, names job_purpose'), ...refusals(403, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      const admission = admittedCall(req);
      // The gate answers every request it does not admit; this is the deny-by-default backstop.
      if (!admission) return send(reply, '', E.left(refusal('ticket')));
      const { body, ask } = splitRecordsBody(req.body);
      const shape = E.isLeft(ask) ? ask : shapeOf(body);
      const answer = await deps.service.run(admission, shape);
      const fitted = E.isRight(ask) && ask.right !== null && E.isRight(shape) ? fitRecordsAnswer(shape.right, answer.outcome, ask.right) : answer.outcome;
      return send(reply, answer.purpose, E.mapLeft((r: Refusal) => explained(r, shape, admission.ctx.agent))(fitted));
    },
  );
};
