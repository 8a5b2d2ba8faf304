import type { FastifyReply, FastifyRequest } from 'fastify';
import { SURFACE_HEADER, surfaceOf } from '../../domain/shared/surface.ts';
import { isAgentPath, isRefusalBody, withMessage } from './refusal-messages.ts';

/** Refusal bodies are small; anything larger is not one of ours and is left alone. */
const MAX_REFUSAL_TEXT = 64 * 1024;

const isJson = (reply: FastifyReply) => /^application\/json\b/i.test(String(reply.getHeader('content-type') ?? 'application/json'));

/**
 * The edge's last step (`onSend`): a refusal (status 4xx or 5xx, a JSON object with `error`)
 * leaves with its `message` — the one its code gives (refusal-messages.ts) unless it carries
 * its own — whichever route, hook or handler answered. The agent API's start `records:`. A
 * message that names what to call next is addressed to the surface the request names
 * (`x-custodian-client`: mcp, python, go, typescript; plain HTTP otherwise).
 */
export const messageOnRefusal = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
  if (reply.statusCode < 400 || typeof payload !== 'string' || payload.length > MAX_REFUSAL_TEXT || !isJson(reply)) return payload;
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return payload;
  }
  if (!isRefusalBody(body)) return payload;
  const agentApi = isAgentPath(req.routeOptions.url ?? req.url);
  if (typeof body.message === 'string' && body.message.length > 0 && (!agentApi || body.message.startsWith('records:'))) return payload;
  return JSON.stringify(withMessage(body, agentApi, surfaceOf(req.headers[SURFACE_HEADER])));
};
