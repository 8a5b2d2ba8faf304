import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { adminKeyMatches } from './auth.ts';
import { TENANT_ID } from '../../domain/shared/names.ts';

/**
 * Who may call a route. Admin routes are registered inside the admin scope (`adminScope`,
 * an encapsulated fastify plugin whose own hook checks the admin key); every other route
 * declares who may call it in its config (`config: PUBLIC`, `TICKET`). The hooks decide on
 * the route the router matched, never on the raw target, so no spelling of a path
 * (percent-encoding, absolute form) can reach a route without its credential. `agent-key`
 * routes pass only with a live agent key (SPEC §12), resolved here to its tenant and agent.
 * `auditor-key` routes (`AUDITOR`: the audit stream, checkpoints, proofs, receipts) pass with
 * the admin key or a live auditor key of the tenant the path names (`:t`); a server built
 * without an auditor-key resolver refuses them like a route declaring nothing. `audit-hashes`
 * routes (the audit log's checkpoint and hash tiles) pass as `auditor-key` ones, or with no key
 * when the tenant in the path serves them publicly (`audit_public: "hashes"`).
 */
export type AuthKind = 'public' | 'admin' | 'ticket' | 'agent-key' | 'auditor-key' | 'audit-hashes';

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
export const AGENT_KEY = { auth: 'agent-key' } as const;
/** Read-only, tenant-bound: the admin key, or an auditor key of the tenant in the path. Declared only by the routes an auditor may read. */
export const AUDITOR = { auth: 'auditor-key' } as const;
/** As AUDITOR, or no key at all when the tenant in the path set `audit_public: "hashes"`: the log's checkpoint and hash tiles. */
export const AUDIT_HASHES = { auth: 'audit-hashes' } as const;
/** Whether a tenant serves its audit hashes without a key. */
export type AuditHashesPublic = (tenant: string) => Promise<boolean>;

/** Who an agent key speaks for; null for a key that is unknown, wrong or revoked. */
export interface AgentPrincipal {
  readonly tenant: string;
  readonly agent: string;
  readonly keyId: string;
}
export type AgentKeyResolver = (authorization: string | undefined) => Promise<AgentPrincipal | null>;
/** The tenant an auditor key reads for; null for a key that is unknown, wrong or revoked. */
export type AuditorKeyResolver = (authorization: string | undefined) => Promise<{ readonly tenant: string; readonly keyId: string } | null>;
// Short names keep the signature of `authorise` on one line.
type Req = FastifyRequest;
type Rep = FastifyReply;

const agentPrincipals = new WeakMap<FastifyRequest, AgentPrincipal>();
/** The agent an `agent-key` route's request was admitted for (set by `authorise`, never by the caller). */
export const agentOf = (req: FastifyRequest): AgentPrincipal | null => agentPrincipals.get(req) ?? null;

/**
 * An early refusal leaves the request body unread: `connection: close` makes node drop the
 * socket after the answer instead of reading the rest of the upload to reuse it.
 */
export const closeIfBodyPending = (req: FastifyRequest, reply: FastifyReply) => {
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > 0 || req.headers['transfer-encoding'] !== undefined) reply.header('connection', 'close');
};

const refuseAdmin = (req: FastifyRequest, reply: FastifyReply) => {
  closeIfBodyPending(req, reply);
  return reply.code(401).send({ error: 'unauthorized', reason: 'send the admin key as Authorization: Bearer <key>' });
};

/** Marks the routes the admin scope registered; unexported, so no route config can claim it. */
const IN_ADMIN_SCOPE = Symbol('custodian admin scope');
const inAdminScope = (req: FastifyRequest) => (req.routeOptions.config as unknown as Record<symbol, unknown>)[IN_ADMIN_SCOPE] === true;

/**
 * The admin scope: every route registered by `routes` is an admin route (it need not, and may
 * not, declare another credential) and passes this scope's own `onRequest` hook, which runs
 * after the edge's, still before any body is read.
 */
export const adminScope =
  (adminKey: string, routes: (scope: FastifyInstance) => void | Promise<void>): FastifyPluginAsync =>
  async (scope) => {
    scope.addHook('onRoute', (route) => {
      const declared = route.config?.auth;
      if (declared !== undefined && declared !== 'admin')
        throw new Error(`${String(route.method)} ${route.url}: the admin scope serves admin routes only, not ${declared}`);
      route.config = Object.assign({ ...route.config, auth: 'admin' as const }, { [IN_ADMIN_SCOPE]: true });
    });
    scope.addHook('onRequest', async (req, reply) => {
      if (!adminKeyMatches(req.headers.authorization, adminKey)) return refuseAdmin(req, reply);
    });
    await routes(scope);
  };

/**
 * The edge's authorisation hook (`onRequest`: before any body is read): deny by default.
 * Admin routes of the admin scope are left to its hook; an admin route declared outside it
 * is checked here, so no admin route ever goes unchecked.
 */
export const authorise =
  (adminKey: string, resolveAgentKey?: AgentKeyResolver, resolveAuditorKey?: AuditorKeyResolver, hashesPublic?: AuditHashesPublic) =>
  async (req: Req, reply: Rep) => {
    // The not-found handler serves nothing; it answers 404 whoever asks.
    if (req.is404) return;
    const kind = req.routeOptions.config.auth;
    if (kind === 'public') return;
    if (kind === 'admin' && (inAdminScope(req) || adminKeyMatches(req.headers.authorization, adminKey))) return;
    // The ticket itself is resolved by the records route's own gate, which also answers
    // with the job's purpose; here only its absence is refused.
    if (kind === 'ticket' && /^Bearer \S+$/.test(req.headers.authorization ?? '')) return;
    if (kind === 'agent-key' && resolveAgentKey) {
      const principal = await resolveAgentKey(req.headers.authorization);
      if (principal) {
        agentPrincipals.set(req, principal);
        return;
      }
      closeIfBodyPending(req, reply);
      return reply
        .code(401)
        .send({ error: 'unauthorized', message: 'records: the agent key was not accepted: send a live agent key as Authorization: Bearer <key>' });
    }
    if ((kind === 'auditor-key' || (kind === 'audit-hashes' && hashesPublic)) && resolveAuditorKey) {
      if (adminKeyMatches(req.headers.authorization, adminKey)) return;
      const tenant = (req.params as Record<string, unknown> | undefined)?.t;
      // Public hashes need no key: a key sent anyway is not judged (a monitor may send one for another log).
      // Only a well-formed id is looked up: no tenant has another, and outside bytes never reach a query unchecked.
      if (kind === 'audit-hashes' && typeof tenant === 'string' && TENANT_ID.test(tenant) && (await hashesPublic!(tenant))) return;
      const principal = await resolveAuditorKey(req.headers.authorization);
      // Tenant-bound: the key reads the tenant it was issued for, under no other path.
      if (principal && typeof tenant === 'string' && tenant === principal.tenant) return;
      closeIfBodyPending(req, reply);
      const or = kind === 'audit-hashes' ? ' (or have the tenant set audit_public to "hashes" to serve them without a key)' : '';
      return reply
        .code(401)
        .send({ error: 'unauthorized', reason: `send the admin key or a live auditor key of this tenant as Authorization: Bearer <key>${or}` });
    }
    closeIfBodyPending(req, reply);
    if (kind === 'admin') return refuseAdmin(req, reply);
    if (kind === 'ticket') return reply.code(401).send({ error: 'ticket', job_purpose: '' });
    return reply.code(403).send({ error: 'unauthorized', reason: 'this route accepts no credential yet' });
  };
