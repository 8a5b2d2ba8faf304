import * as E from 'fp-ts/lib/Either.js';
import type { EventOf } from '../events/schema.ts';
import type { Decider } from '../shared/decider.ts';
import { refusal, type Refusal } from '../shared/refusal.ts';
import type { RecordVersionWritten, Sealed } from './events.ts';

type Written = EventOf<typeof RecordVersionWritten>;

/** One exported version, its body already sealed (sealing is I/O; it stays outside the decider). */
export interface ImportedVersion {
  readonly key: string;
  readonly version: number;
  readonly body: Sealed;
  readonly body_bytes: number;
  readonly kind: string;
  readonly state: string;
  readonly supersedes: string | null;
  readonly ends_at: number;
  readonly subject_kind: 'work' | 'person';
  readonly closed: boolean;
  readonly purpose: string;
  readonly labels: readonly string[];
  readonly created_ms: number;
}

/** Load one scope's exported versions into its (empty) stream. */
export interface ImportScope {
  readonly tenant: string;
  readonly plugin: string;
  readonly scope: string;
  readonly versions: readonly ImportedVersion[];
  readonly now: number;
}

export interface ImportScopeState {
  readonly events: number;
}

/**
 * An import writes the facts an export shows, into a scope with no history, so nothing it
 * writes can contradict what a stream already decided. Which data subject wrote a version
 * and its dedupe text do not travel in an export; the writer is `import`.
 */
export const decideImport = (c: ImportScope, s: ImportScopeState): E.Either<Refusal, readonly Written[]> => {
  if (s.events > 0) return E.left(refusal('not_empty', { reason: `the scope ${c.plugin}/${c.scope} already has events` }));
  return E.right(
    c.versions.map((v) => ({
      type: 'RecordVersionWritten',
      data: {
        tenant: c.tenant,
        plugin: c.plugin,
        scope: c.scope,
        key: v.key,
        version: v.version,
        data_subject: null,
        body: v.body,
        body_bytes: v.body_bytes,
        kind: v.kind,
        state: v.state,
        supersedes: v.supersedes,
        ends_at: v.ends_at,
        subject_kind: v.subject_kind,
        closed: v.closed,
        purpose: v.purpose,
        labels: [...v.labels],
        created_ms: v.created_ms,
        writer: { job: 'import', run: 0, call: 'import', step: 0, agent: 'import', plugin: c.plugin, tainted: false },
        request_key: `import#${c.now}#${c.plugin}#${c.scope}#${v.key}#${v.version}`,
        dedupe: null,
      },
    })),
  );
};

export const importDecider: Decider<ImportScope, Written, ImportScopeState> = {
  initialState: () => ({ events: 0 }),
  evolve: (s) => ({ events: s.events + 1 }),
  decide: decideImport,
};
