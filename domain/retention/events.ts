import * as t from 'io-ts';
import { defineEvent, type EventOf } from '../events/schema.ts';
import { SelectorCodec } from './holds.ts';

export const HoldPlaced = defineEvent(
  'HoldPlaced',
  1,
  t.type({ tenant: t.string, hold: t.string, selector: SelectorCodec, reason: t.string, placed_ms: t.number }),
);
export const HoldReleased = defineEvent('HoldReleased', 1, t.type({ tenant: t.string, hold: t.string, released_ms: t.number }));

/** An erasure asked for: it stays pending while holds defer part of it. */
export const ErasureRequested = defineEvent('ErasureRequested', 1, t.type({ tenant: t.string, data_subject: t.string, requested_ms: t.number }));

/** The subject's key is gone: everything sealed under it is unreadable, in every copy of the log. */
export const SubjectKeyShredded = defineEvent(
  'SubjectKeyShredded',
  1,
  t.type({ tenant: t.string, data_subject: t.string, records: t.number, receipt: t.UnknownRecord, shredded_ms: t.number }),
);

/**
 * An erasure that could not finish now (held records or files of the subject, or a subject still
 * being written to): its receipt (`complete: false`) is logged when it is deferred, so it proves
 * its own logging as a finished one does. The subject stays pending; `SubjectKeyShredded` follows
 * when it completes.
 */
export const ErasureDeferred = defineEvent(
  'ErasureDeferred',
  1,
  t.type({ tenant: t.string, data_subject: t.string, records: t.number, deferred: t.number, receipt: t.UnknownRecord, deferred_ms: t.number }),
);

export const RemovalReason = t.keyof({ person_end: null, retention: null, erasure: null });

/** A record leaves every read model and its keys are shredded (SPEC §7). */
export const RecordRemoved = defineEvent(
  'RecordRemoved',
  1,
  t.type({ tenant: t.string, plugin: t.string, scope: t.string, key: t.string, reason: RemovalReason, removed_ms: t.number }),
);

/** A work record reached its end, a review date: its owner is asked to renew it. */
export const RenewalRequested = defineEvent(
  'RenewalRequested',
  1,
  t.type({ tenant: t.string, plugin: t.string, scope: t.string, key: t.string, version: t.number, ends_at: t.number, requested_ms: t.number }),
);

/** An export was built (exports are audited). */
export const TenantExported = defineEvent(
  'TenantExported',
  1,
  t.type({ tenant: t.string, position: t.number, records: t.number, versions: t.number, sha256: t.string, exported_ms: t.number }),
);

export const retentionEventSchemas = [
  HoldPlaced,
  HoldReleased,
  ErasureRequested,
  SubjectKeyShredded,
  ErasureDeferred,
  RecordRemoved,
  RenewalRequested,
  TenantExported,
] as const;

export type RetentionEvent =
  | EventOf<typeof HoldPlaced>
  | EventOf<typeof HoldReleased>
  | EventOf<typeof ErasureRequested>
  | EventOf<typeof SubjectKeyShredded>
  | EventOf<typeof ErasureDeferred>
  | EventOf<typeof RecordRemoved>
  | EventOf<typeof RenewalRequested>
  | EventOf<typeof TenantExported>;
