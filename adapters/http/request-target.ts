import type { FastifyReply, FastifyRequest } from 'fastify';
import { closeIfBodyPending } from './route-auth.ts';

/**
 * Only origin-form targets (`/v1/…`) are served: an absolute-form target
 * (`POST http://x/v1/…`), the asterisk form or anything else is refused before any route
 * acts on it, so what the router matched is always what the client spelled as a path.
 * An HTTP/1.1 request without a Host header is refused here too, as JSON (node's own
 * refusal is an empty 400, so the server turns it off and leaves it to this hook).
 */
export const checkRequestTarget = async (req: FastifyRequest, reply: FastifyReply) => {
  const target = req.raw.url ?? '';
  if (!target.startsWith('/')) {
    closeIfBodyPending(req, reply);
    return reply.code(400).send({ error: 'invalid', field: 'target', reason: 'send the request target as a path (origin form: /v1/…)' });
  }
  if (req.raw.httpVersionMajor === 1 && req.raw.httpVersionMinor >= 1 && !req.headers.host) {
    closeIfBodyPending(req, reply);
    return reply.code(400).send({ error: 'invalid', field: 'host', reason: 'send a Host header' });
  }
};
