/** SPEC §4 bounds: the numbers the records API never lets a tenant change. */
export const MAX_REQUESTS_PER_CALL = 64;
export const MAX_BODY_BYTES = 16 * 1024;
export const MAX_LIVE_PER_SCOPE = 20_000;
export const MAX_LIST_LIMIT = 200;
export const DEFAULT_LIST_LIMIT = 50;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** Why a body (as serialized) is over the limit, or null: a put's rule, and an import's. */
export const bodyOverLimit = (bodyText: string): string | null => {
  const bytes = Buffer.byteLength(bodyText);
  return bytes > MAX_BODY_BYTES ? `body is ${bytes} bytes serialized; at most ${MAX_BODY_BYTES}` : null;
};

export const RECORD_KEY = /^[A-Za-z0-9._:@/+=-]{1,200}$/;
export const RECORD_SCOPE = /^(tenant|project:[A-Za-z0-9._:@/+=-]{1,200}|agent:[A-Za-z0-9._:@/+=-]{1,200})$/;

export type ScopeKind = 'tenant' | 'project' | 'agent';
export const scopeKind = (scope: string): ScopeKind => (scope === 'tenant' ? 'tenant' : (scope.split(':')[0] as ScopeKind));

export const recordsStream = (tenant: string, plugin: string, scope: string) => `records:${tenant}:${plugin}:${scope}`;

/** The tenant a records stream belongs to (tenant ids hold no `:`). */
export const tenantOfRecordsStream = (stream: string) => stream.slice('records:'.length, stream.indexOf(':', 'records:'.length));

/** The request key of SPEC §4 check 5: the call's idempotency key and the request's index in the call. */
export const requestKey = (idempotencyKey: string, index: number) => `${idempotencyKey}#${index}`;
