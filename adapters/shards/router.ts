import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { adminKeyMatches } from '../http/auth.ts';
import { isDatabaseUnavailable } from '../http/database-unavailable.ts';
import { ticketHash } from '../../domain/shared/hash.ts';
import { tenantOfTicketHash } from '../../queries/tenant-residence.ts';
import type { Cells } from './cells.ts';
import { adoptIfHeld } from './adopt.ts';
import { createTenant } from './create-tenant.ts';
import { clockEverywhere, consoleTenants, health, metricsOfAll } from './fan-out.ts';
import { forwardedHeaders, sendInjected, sendJson } from './http-io.ts';
import type { PlacementCache } from './placement-cache.ts';
import type { PlacementStore } from './placement.ts';
import { isAgentPath, isTicketPath, tenantOfAgentKey, tenantOfPath, tenantOfStreams } from './request-tenant.ts';

export interface RouterDeps {
  readonly cells: Cells;
  readonly placement: PlacementStore;
  readonly placements: PlacementCache;
  readonly adminKey: string;
  /** `POST /v1/tenants/{t}/move`, when this instance runs moves. */
  readonly move?: (req: IncomingMessage, res: ServerResponse, tenant: string) => Promise<void>;
  readonly logger?: Logger;
}

/** A database the routing needed (the control database for a placement, a tenant database for a ticket) did not answer. */
const UNAVAILABLE = {
  error: 'unavailable',
  reason: 'a database this request needs does not answer',
  message: 'a database this request needs does not answer: retry in a few seconds',
};

const MOVING = {
  error: 'moving',
  reason: 'the tenant is being moved to another database; its writes pause until the move ends',
  message: 'the tenant is being moved to another database: retry this write in a second',
};

/**
 * The tenant behind a call ticket: asked of every tenant database (a ticket names no tenant),
 * remembered while this process lives. Undefined when no database knows it; throws when one
 * that might does not answer (the caller answers 503, not 401).
 */
const ticketTenants = (cells: Cells) => {
  const known = new Map<string, string>();
  return async (authorization: string | undefined): Promise<string | undefined> => {
    const ticket = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (ticket === undefined) return undefined;
    const hash = ticketHash(ticket);
    const hit = known.get(hash);
    if (hit !== undefined) return hit;
    let failure: unknown;
    const found = await Promise.all(
      cells.names.map((name) =>
        tenantOfTicketHash(cells.byName.get(name)!.db, hash).catch((error: unknown) => {
          failure = error;
          return undefined;
        }),
      ),
    );
    const tenant = found.find((t) => t !== undefined);
    if (tenant === undefined && failure !== undefined) throw failure;
    if (tenant !== undefined) {
      if (known.size >= 10_000) known.delete(known.keys().next().value!);
      known.set(hash, tenant);
    }
    return tenant;
  };
};

/**
 * The instance's front: routes every request to the cell of its tenant's database, answers the
 * routes that span tenants from all of them, and pauses a moving tenant's writes. The cells do
 * all the rest (credentials, validation, refusals) exactly as one database does.
 */
export const shardRouter = (deps: RouterDeps) => {
  const { cells } = deps;
  const tenantOfTicket = ticketTenants(cells);

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = new URL(req.url ?? '/', 'http://router');
    const path = target.pathname;
    const method = req.method ?? 'GET';
    const admin = adminKeyMatches(req.headers.authorization, deps.adminKey);
    if (admin && method === 'POST' && path === '/v1/tenants') return createTenant(req, res, cells, deps.placement);
    if (admin && method === 'GET' && path === '/v1/console/tenants') return consoleTenants(res, cells, deps.placement, forwardedHeaders(req));
    if (admin && method === 'POST' && path === '/v1/_clock') return clockEverywhere(req, res, cells);
    if (method === 'GET' && path === '/metrics') return metricsOfAll(res, cells);
    if (method === 'GET' && path === '/healthz') return health(res, cells, deps.placement);

    const tenant =
      tenantOfPath(path) ??
      tenantOfStreams(path, target.searchParams) ??
      (isAgentPath(path) ? tenantOfAgentKey(req.headers.authorization) : undefined) ??
      (isTicketPath(path) ? await tenantOfTicket(req.headers.authorization) : undefined);
    // Nothing a tenant owns (docs, the audit key), or a tenant no database holds: any cell answers alike.
    let placed = tenant === undefined ? null : await deps.placements.of(tenant);
    // A tenant a database holds with no placement (a database that held every tenant before it was named here) is placed where it is.
    // Asked with the admin key only: an unauthenticated request costs no query of every database.
    if (admin && tenant !== undefined && !placed && (await adoptIfHeld(cells, deps.placement, tenant))) placed = await deps.placements.of(tenant);
    if (!placed) return cells.first.app.routing(req, res);
    const cell = cells.byName.get(placed.database);
    if (!cell) return sendJson(res, 503, { ...UNAVAILABLE, reason: `the tenant's database ${placed.database} is not in CUSTODIAN_DATABASES` });
    if (method === 'POST' && deps.move && /^\/v1\/tenants\/[^/]+\/move$/.test(path)) {
      if (!admin)
        return sendJson(
          res,
          401,
          { error: 'unauthorized', message: 'moving a tenant needs the admin key: send it as Authorization: Bearer <key>' },
          { connection: 'close' },
        );
      return deps.move(req, res, placed.tenant);
    }
    if (placed.movingTo !== null && method !== 'GET' && method !== 'HEAD') return sendJson(res, 503, MOVING, { 'retry-after': '1' });
    if (method === 'GET' && /^\/v1\/tenants\/[^/]+$/.test(path)) {
      const answer = await cell.app.inject({ method: 'GET', url: req.url ?? path, headers: forwardedHeaders(req) });
      return sendInjected(res, answer, answer.statusCode === 200 ? (b) => ({ ...b, database: placed.database }) : undefined);
    }
    return cell.app.routing(req, res);
  };

  return (req: IncomingMessage, res: ServerResponse): void => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      if (isDatabaseUnavailable(error)) return sendJson(res, 503, UNAVAILABLE, { 'retry-after': '5' });
      deps.logger?.error({ err: error }, 'routing failed');
      sendJson(res, 500, { error: 'internal', message: 'the request could not be routed: see the service log' });
    });
  };
};
