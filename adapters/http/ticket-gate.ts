import type { FastifyReply, FastifyRequest } from 'fastify';
import * as E from 'fp-ts/lib/Either.js';
import type { Admitted, RecordsService } from '../../commands/records-service.ts';
import { admissionOf, admit } from './admitted.ts';
import { closeIfBodyPending } from './route-auth.ts';
import { statusOf } from './status.ts';

/**
 * The records API's gate (checks 1 and 2: ticket and fence, then the request count), run in
 * `onRequest` before any body is read, for every route a call ticket opens (records, files,
 * results). A refusal is answered with the job's purpose ('' for no job) and leaves the
 * upload unread; an admitted call is kept on the request for the handler.
 */
export const ticketGate = (service: RecordsService, cacheable?: (req: FastifyRequest) => boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
  const ticket = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  // A cached admission counts only when the handler runs: for a route and body that will reach it.
  const admitted = cacheable?.(req) ? await service.admitCached(ticket) : await service.admit(ticket);
  if (E.isLeft(admitted.outcome)) {
    closeIfBodyPending(req, reply);
    return reply.code(statusOf(admitted.outcome.left)).send({ ...admitted.outcome.left, job_purpose: admitted.purpose });
  }
  admit(req, { purpose: admitted.purpose, admitted: admitted.outcome.right });
};

/** The call the gate admitted, or undefined (the handler then refuses: deny by default). */
export const admittedCall = (req: FastifyRequest) => admissionOf<Admitted>(req)?.admitted;
