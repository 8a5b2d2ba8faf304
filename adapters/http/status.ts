import type { Refusal, RefusalCode } from '../../domain/shared/refusal.ts';

/**
 * The only place refusal codes meet HTTP statuses. Exhaustive by type: a code without a
 * status does not compile, so no refusal can fall through to a guessed one.
 */
export const STATUS: Readonly<Record<RefusalCode, number>> = {
  invalid: 400,
  closed: 400,
  ends_at: 400,
  unauthorized: 401,
  ticket: 401,
  revoked: 403,
  scope: 403,
  purpose: 403,
  person_off: 403,
  person_scope: 403,
  job_not_running: 403,
  widening_refused: 403,
  envelope_invalid: 403,
  label_wall: 403,
  not_found: 404,
  timeout: 408,
  removed: 410,
  already_exists: 409,
  not_empty: 409,
  stale: 409,
  duplicate: 409,
  full: 409,
  held: 409,
  forgotten: 409,
  too_large: 413,
  unsupported_media_type: 415,
  requests: 429,
  result_too_large: 413,
  files_held: 409,
  withheld: 403,
  tampered: 409,
  internal: 500,
  unavailable: 503,
  moving: 503,
  move_failed: 409,
};

/**
 * A code outside the union can only arrive past the type system (a cast, a parsed body):
 * that is a fault of ours, so it fails loudly (the error handler answers 500 and logs it)
 * instead of passing for the caller's mistake.
 */
export const statusOf = (r: Refusal): number => {
  const status = (STATUS as Readonly<Record<string, number>>)[r.error];
  if (status === undefined || !Object.hasOwn(STATUS, r.error)) throw new Error(`refusal code ${JSON.stringify(r.error)} has no HTTP status`);
  return status;
};
