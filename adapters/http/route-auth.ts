import type { FastifyReply, FastifyRequest } from 'fastify';
import { adminKeyMatches } from './auth.ts';

/**
 * Who may call a route. Every route declares one in its config (`config: ADMIN` …); the
 * hook below decides on the route the router matched, never on the raw target, so no
 * spelling of a path (percent-encoding, absolute form) can reach a route without its
 * credential. `agent-key` and `auditor-key` are reserved for credentials not built yet:
 * until they are, a route declaring them is refused like one declaring nothing.
 */
export type AuthKind = 'public' | 'admin' | 'ticket' | 'agent-key' | 'auditor-key';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route; a route that declares nothing is refused (deny by default). */
    auth?: AuthKind;
    /** The records API: body errors (bad JSON, bad bytes) wait for check 3, after the ticket and the count. */
    deferBodyErrors?: boolean;
  }
}

export const PUBLIC = { auth: 'public' } as const;
export const ADMIN = { auth: 'admin' } as const;
export const TICKET = { auth: 'ticket', deferBodyErrors: true } as const;

/**
 * An early refusal leaves the request body unread: `connection: close` makes node drop the
 * socket after the answer instead of reading the rest of the upload to reuse it.
 */
export const closeIfBodyPending = (req: FastifyRequest, reply: FastifyReply) => {
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > 0 || req.headers['transfer-encoding'] !== undefined) reply.header('connection', 'close');
};

/** The one authorisation hook (`onRequest`: before any body is read). */
export const authorise = (adminKey: string) => async (req: FastifyRequest, reply: FastifyReply) => {
  // The not-found handler serves nothing; it answers 404 whoever asks.
  if (req.is404) return;
  const kind = req.routeOptions.config.auth;
  if (kind === 'public') return;
  if (kind === 'admin' && adminKeyMatches(req.headers.authorization, adminKey)) return;
  // The ticket itself is resolved by the records route's own gate, which also answers
  // with the job's purpose; here only its absence is refused.
  if (kind === 'ticket' && /^Bearer \S+$/.test(req.headers.authorization ?? '')) return;
  closeIfBodyPending(req, reply);
  if (kind === 'admin') return reply.code(401).send({ error: 'unauthorized', reason: 'send the admin key as Authorization: Bearer <key>' });
  if (kind === 'ticket') return reply.code(401).send({ error: 'ticket', job_purpose: '' });
  return reply.code(403).send({ error: 'unauthorized', reason: 'this route accepts no credential yet' });
};
