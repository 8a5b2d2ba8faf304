import * as E from 'fp-ts/lib/Either.js';
import type { EventOf } from '../events/schema.ts';
import type { TenantExported } from '../retention/events.ts';
import type { Decider } from '../shared/decider.ts';
import { refusal, type Refusal } from '../shared/refusal.ts';

type Exported = EventOf<typeof TenantExported>;

/** An export that was built and is about to be answered: the fact the audit keeps of it. */
export interface RecordExport {
  readonly tenant: string;
  /** The log position the export was built to. */
  readonly position: number;
  readonly records: number;
  readonly versions: number;
  readonly sha256: string;
  readonly now: number;
}

/** The `exports:<tenant>` stream: how far exports have reached. */
export interface ExportsState {
  readonly exports: number;
}

/**
 * Exports are audited (SPEC §7): each answered export is one `TenantExported`. A position
 * below zero or counts that do not add up are no export the service built.
 */
export const decideExport = (c: RecordExport, _s: ExportsState): E.Either<Refusal, readonly Exported[]> => {
  if (!Number.isInteger(c.position) || c.position < 0) return E.left(refusal('invalid', { field: 'position', reason: 'a log position is a whole number' }));
  if (c.versions < c.records) return E.left(refusal('invalid', { field: 'versions', reason: 'every record has at least one version' }));
  return E.right([
    {
      type: 'TenantExported',
      data: { tenant: c.tenant, position: c.position, records: c.records, versions: c.versions, sha256: c.sha256, exported_ms: c.now },
    },
  ]);
};

export const exportDecider: Decider<RecordExport, Exported, ExportsState> = {
  initialState: () => ({ exports: 0 }),
  evolve: (s) => ({ exports: s.exports + 1 }),
  decide: decideExport,
};
