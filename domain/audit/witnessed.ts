import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { defineEvent, type EventOf } from '../events/schema.ts';
import type { Decider } from '../shared/decider.ts';

/**
 * A tenant log's checkpoint reached the witness quorum: `witnesses` (key name and id) each
 * cosigned the tree of this size and root (their lines are the CheckpointCosigned events of
 * that checkpoint). A log publishes only what its witnesses saw: the newest of these is the
 * checkpoint readers who trust the witnesses are served.
 */
export const CheckpointWitnessed = defineEvent(
  'CheckpointWitnessed',
  1,
  t.type({
    tenant: t.string,
    size: t.number,
    root: t.string,
    witnesses: t.array(t.type({ witness: t.string, key_id: t.number })),
    quorum: t.number,
    witnessed_ms: t.number,
  }),
);
export type WitnessedEvent = EventOf<typeof CheckpointWitnessed>;

export const witnessedEventSchemas = [CheckpointWitnessed] as const;

/** One stream per tenant: its checkpoints that reached the quorum, in size order. */
export const witnessedStream = (tenant: string) => `auditwitnessed:${tenant}`;

export interface WitnessedCheckpoint {
  readonly size: number;
  readonly root: string;
}

/** The tenant's witnessed checkpoints, oldest first (sizes only grow). */
export type WitnessedState = readonly WitnessedCheckpoint[];

export interface MarkWitnessed {
  readonly tenant: string;
  readonly size: number;
  readonly root: string;
  readonly witnesses: readonly { witness: string; key_id: number }[];
  readonly quorum: number;
  readonly now: number;
}

export const witnessedDecider: Decider<MarkWitnessed, WitnessedEvent, WitnessedState> = {
  initialState: () => [],
  evolve: (state, e) => [...state, { size: e.data.size, root: e.data.root }],
  fold: (state, events) => [...state, ...events.map((e) => ({ size: e.data.size, root: e.data.root }))],
  // Marked once, and only forward: a checkpoint no bigger than the newest witnessed one adds nothing.
  decide: (c, state) =>
    E.right(
      state.length > 0 && state.at(-1)!.size >= c.size
        ? []
        : [
            {
              type: 'CheckpointWitnessed' as const,
              data: {
                tenant: c.tenant,
                size: c.size,
                root: c.root,
                witnesses: c.witnesses.map((w) => ({ witness: w.witness, key_id: w.key_id })),
                quorum: c.quorum,
                witnessed_ms: c.now,
              },
            },
          ],
    ),
};
