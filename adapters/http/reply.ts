import type { FastifyReply } from 'fastify';
import * as E from 'fp-ts/lib/Either.js';
import type { Refusal } from '../../domain/shared/refusal.ts';
import type { ProjectionRunner } from '../../projections/runner.ts';
import { statusOf } from './status.ts';

/**
 * Answers a command's outcome. A success waits until the read models hold its events, so
 * the caller reads its own writes (a ticket it just killed is dead for every reader). When
 * they do not within the wait, the answer says so (503): the events are in the log and will
 * reach the models, but a 200 now would promise reads that could still miss them.
 */
export const answer = async <T extends { position: number | null }>(
  reply: FastifyReply,
  runner: ProjectionRunner,
  result: E.Either<Refusal, T>,
  body: (value: T) => unknown,
  status: number | ((value: T) => number) = 200,
) => {
  if (E.isLeft(result)) return reply.code(statusOf(result.left)).send(result.left);
  if (result.right.position !== null && !(await runner.waitFor(result.right.position)))
    return reply
      .code(503)
      .header('retry-after', '1')
      .send({ error: 'unavailable', reason: 'read models are behind the log; the change is recorded', position: result.right.position });
  return reply.code(typeof status === 'function' ? status(result.right) : status).send(body(result.right));
};
