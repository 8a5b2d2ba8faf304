/** Network codes of a connection that cannot be made, or was cut. */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * SQLSTATEs of a server that is not there to answer: class 08 (connection exception), 57P01
 * admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting or stopping), 53300
 * too_many_connections.
 */
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** What node-postgres and its pool say, without a code, when the server went away or the pool is closed. */
const PG_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /is not queryable/,
  /^Cannot use a pool after calling end on the pool/,
  /^Client was closed/,
];

/**
 * Whether an error means the database does not answer, so the request should be answered 503
 * `unavailable` and not 500: the connection was refused, cut or timed out, the server is
 * shutting down or not yet accepting connections, or (EventStoreDB) unavailable. Looks through
 * `cause` and an AggregateError's `errors` (a refused connect to every address of a host).
 */
export const isDatabaseUnavailable = (error: unknown, depth = 0): boolean => {
  if (depth > 4 || error === null || typeof error !== 'object') return false;
  const e = error as { code?: unknown; message?: unknown; type?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (NETWORK.has(e.code) || SQLSTATE.test(e.code))) return true;
  if (typeof e.message === 'string' && PG_MESSAGES.some((m) => m.test(e.message as string))) return true;
  // @eventstore/db-client's UnavailableError and DeadlineExceededError.
  if (e.type === 'unavailable' || e.type === 'deadline-exceeded') return true;
  return isDatabaseUnavailable(e.cause, depth + 1) || (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1)));
};

/** The answer to a request the database could not serve: what happened; its message says to retry. */
export const DATABASE_UNAVAILABLE = { error: 'unavailable', reason: 'the database does not answer' } as const;
