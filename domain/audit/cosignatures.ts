import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { defineEvent, type EventOf } from '../events/schema.ts';
import type { Decider } from '../shared/decider.ts';

/**
 * A witness's cosignature of one of a tenant log's checkpoints (c2sp.org/tlog-cosignature),
 * checked against the witness's configured key before it is kept. `line` is the note signature
 * line as the witness wrote it, served with the checkpoint of that size from then on.
 */
export const CheckpointCosigned = defineEvent(
  'CheckpointCosigned',
  1,
  t.type({ tenant: t.string, size: t.number, root: t.string, witness: t.string, key_id: t.number, line: t.string, received_ms: t.number }),
);
export type CosignatureEvent = EventOf<typeof CheckpointCosigned>;

export const cosignatureEventSchemas = [CheckpointCosigned] as const;

/** One stream per checkpoint (tenant and size): reading a checkpoint's cosignatures reads only them. */
export const cosignaturesStream = (tenant: string, size: number) => `auditcosig:${tenant}:${size}`;

/** Witness (name and key id) → its cosignature line, for one checkpoint. */
export type CosignaturesState = ReadonlyMap<string, string>;

export interface KeepCosignatures {
  readonly tenant: string;
  readonly size: number;
  readonly root: string;
  readonly cosignatures: readonly { witness: string; key_id: number; line: string }[];
  readonly now: number;
}

const witnessRef = (witness: string, keyId: number) => `${witness}+${keyId}`;

export const cosignaturesDecider: Decider<KeepCosignatures, CosignatureEvent, CosignaturesState> = {
  initialState: () => new Map(),
  evolve: (state, e) => new Map(state).set(witnessRef(e.data.witness, e.data.key_id), e.data.line),
  // A witness's cosignature is kept once (its first); posting it again adds nothing.
  decide: (c, state) =>
    E.right(
      c.cosignatures
        .filter(
          (s, i, all) =>
            !state.has(witnessRef(s.witness, s.key_id)) && all.findIndex((o) => witnessRef(o.witness, o.key_id) === witnessRef(s.witness, s.key_id)) === i,
        )
        .map((s) => ({
          type: 'CheckpointCosigned' as const,
          data: { tenant: c.tenant, size: c.size, root: c.root, witness: s.witness, key_id: s.key_id, line: s.line, received_ms: c.now },
        })),
    ),
};
