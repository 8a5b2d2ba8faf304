import type { Refusal } from '../../domain/shared/refusal.ts';

/** The only place refusal codes meet HTTP statuses. */
const STATUS: Readonly<Record<string, number>> = {
  invalid: 400,
  unauthorized: 401,
  ticket: 401,
  revoked: 403,
  scope: 403,
  purpose: 403,
  person_off: 403,
  person_scope: 403,
  closed: 400,
  ends_at: 400,
  job_not_running: 403,
  widening_refused: 403,
  envelope_invalid: 403,
  not_found: 404,
  already_exists: 409,
  not_empty: 409,
  stale: 409,
  duplicate: 409,
  full: 409,
  held: 409,
  too_large: 413,
  unsupported_media_type: 415,
  requests: 429,
  unavailable: 503,
};

export const statusOf = (r: Refusal): number => STATUS[r.error] ?? 400;
