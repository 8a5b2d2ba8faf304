/**
 * A refusal is a value, never an exception: the core answers "no" with a code and the
 * fields the caller needs to act. Transports decide how to carry it (adapters/http maps
 * codes to statuses, exhaustively: a code added here fails the type check until it has one).
 */
export const REFUSAL_CODES = [
  // the request itself
  'invalid',
  'unsupported_media_type',
  'too_large',
  'not_found',
  'already_exists',
  // credentials and authority
  'unauthorized',
  'ticket',
  'revoked',
  'scope',
  'purpose',
  'person_off',
  'person_scope',
  'job_not_running',
  'widening_refused',
  'envelope_invalid',
  'label_wall',
  // the log itself: an event that does not match its MAC, or a hole in a stream
  'tampered',
  // record writes (SPEC §4 checks)
  'closed',
  'ends_at',
  'stale',
  'duplicate',
  'full',
  'held',
  'not_empty',
  // a tenant removed (its keys shredded): its id answers this from then on
  'removed',
  'requests',
  // results offloaded as files (SPEC §13)
  'result_too_large',
  'files_held',
  'withheld',
  // agent records (SPEC §12): a put naming a person forgotten while its tool ran
  'forgotten',
  // the edge's own answers, in the same shape: a request that never fully arrived, a fault
  'timeout',
  'internal',
  // tenants on several databases: a tenant being moved, a move whose copy did not check out
  'moving',
  'move_failed',
  // the service's own: the read models did not reach an answer's events in time
  'unavailable',
] as const;

export type RefusalCode = (typeof REFUSAL_CODES)[number];

export type Refusal = { readonly error: RefusalCode } & Readonly<Record<string, unknown>>;

export const refusal = <C extends RefusalCode, F extends Record<string, unknown>>(error: C, fields?: F): { error: C } & F => ({
  error,
  ...(fields ?? ({} as F)),
});

export const invalid = (field: string, reason: string) => refusal('invalid', { field, reason });
export const notFound = (what: string) => refusal('not_found', { what });
