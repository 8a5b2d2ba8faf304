/**
 * Every `kind` an audit entry can have (entries.ts). The audit stream's `kind` filter
 * accepts these only: a kind that no entry has could never match, so it is refused rather
 * than answered with an empty stream. A unit test holds this list to the kinds entries.ts writes.
 */
export const AUDIT_KINDS = [
  'read',
  'startup_read',
  'write',
  'job_started',
  'job_ended',
  'job_stopped',
  'envelope_block',
  'widening_refused',
  'revocation',
  'revocation_receipt',
  'hold_placed',
  'hold_released',
  'erasure_requested',
  'erasure',
  'erasure_deferred',
  'record_removed',
  'renewal_requested',
  'agent_read',
  'export',
  'startup_text',
  'files_handed',
  'file_removed',
  'kill_lifted',
  'agent_write',
  'agent_delete',
  'agent_person_forgotten',
  'tenant_removed',
] as const;
