import { TENANT_ID } from '../../domain/shared/names.ts';

/**
 * A tenant id as the router reads it from outside bytes: undefined unless it is one (the cell
 * refuses it). Checked here, once, so nothing else (a NUL, a lone surrogate) reaches a query.
 */
const tenantId = (text: string | undefined): string | undefined => (text !== undefined && TENANT_ID.test(text) ? text : undefined);

/** Decodes one path segment; undefined when it is not valid percent-encoding (the cell refuses it). */
const segment = (text: string | undefined): string | undefined => {
  if (text === undefined || text === '') return undefined;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** The tenant a tenant-scoped path names: `/v1/tenants/{t}/…`. */
export const tenantOfPath = (path: string): string | undefined => tenantId(segment(/^\/v1\/tenants\/([^/]+)/.exec(path)?.[1]));

/**
 * The tenant of the console's event browser: a stream name is `<kind>:<tenant>[:…]`, in the path
 * (`/v1/events/streams/{stream}`) or in `?prefix=`.
 */
export const tenantOfStreams = (path: string, query: URLSearchParams): string | undefined => {
  if (!path.startsWith('/v1/events/streams')) return undefined;
  const stream = segment(/^\/v1\/events\/streams\/([^/]+)/.exec(path)?.[1]) ?? query.get('prefix') ?? '';
  return tenantId(stream.split(':')[1]);
};

/** The tenant written into an agent key (`ak.<tenant>.<id>.<secret>`): the key itself is checked by the cell. */
export const tenantOfAgentKey = (authorization: string | undefined): string | undefined =>
  tenantId(/^Bearer ak\.([^.\s]+)\.[0-9a-f]+\.\S+$/.exec(authorization ?? '')?.[1]);

/** The routes a call ticket authorises (the records API, files and results): the ticket names no tenant, the cell that minted it knows. */
export const isTicketPath = (path: string): boolean => /^\/v1\/(records|files|results)(\/|$)/.test(path);

export const isAgentPath = (path: string): boolean => /^\/v1\/agent(\/|$)/.test(path);
