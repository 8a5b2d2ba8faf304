import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as E from 'fp-ts/lib/Either.js';
import type { z } from 'zod';
import type { RecordsOp, RecordsService } from '../../../commands/records-service.ts';
import { refusal, type Refusal } from '../../../domain/shared/refusal.ts';
import { RecordsRequest } from '../records-schemas.ts';
import { statusOf } from '../status.ts';
import { BadBody } from '../json-body.ts';
import { TICKET } from '../route-auth.ts';
import { admittedCall, ticketGate } from '../ticket-gate.ts';
import { MAX_RECORDS_REQUEST_BYTES } from '../body-limits.ts';
import { fitRecordsAnswer, splitRecordsBody } from '../fitted.ts';

/** The records API is a service (commands/records-service.ts); this route parses, calls and answers. */
export interface RecordsDeps {
  readonly service: RecordsService;
}

const invalidOf = (error: z.ZodError): Refusal => {
  const issue = error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') return refusal('invalid', { field: [...path, issue.keys[0]].join('.'), reason: 'unknown field' });
  if (issue.code === 'invalid_union' && path.length === 0) return refusal('invalid', { field: 'op', reason: 'op is put, get, history or list' });
  return refusal('invalid', { field: path.join('.') || 'body', reason: issue.message });
};

/** The body as check 3 sees it: the request, or why it is not one. */
const shapeOf = (body: unknown): E.Either<Refusal, RecordsOp> => {
  if (body instanceof BadBody) return E.left(body.refusal);
  const parsed = RecordsRequest.safeParse(body);
  return parsed.success ? E.right(parsed.data) : E.left(invalidOf(parsed.error));
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
      schema: { tags: ['records'], summary: 'put, get, history and list plugin records (Bearer <ticket>)' },
    },
    async (req, reply) => {
      const admission = admittedCall(req);
      // The gate answers every request it does not admit; this is the deny-by-default backstop.
      if (!admission) return send(reply, '', E.left(refusal('ticket')));
      const { body, ask } = splitRecordsBody(req.body);
      const shape = E.isLeft(ask) ? ask : shapeOf(body);
      const answer = await deps.service.run(admission, shape);
      const fitted = E.isRight(ask) && ask.right !== null && E.isRight(shape) ? fitRecordsAnswer(shape.right, answer.outcome, ask.right) : answer.outcome;
      return send(reply, answer.purpose, fitted);
    },
  );
};
