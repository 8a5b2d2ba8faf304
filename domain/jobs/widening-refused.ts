import * as E from 'fp-ts/lib/Either.js';
import type { EventOf } from '../events/schema.ts';
import type { Decider } from '../shared/decider.ts';
import type { EnvelopeWideningRefused } from './events.ts';

type Refused = EventOf<typeof EnvelopeWideningRefused>;

/** A child start the parent's envelope refused: a fact of the parent's tree, for the audit. */
export interface NoteWideningRefused {
  readonly tenant: string;
  readonly job: string;
  readonly run: number;
  readonly child: string;
  readonly field: string;
  readonly reason: string;
  readonly now: number;
}

/** It changes nothing the parent decides on, so any state takes it. */
export const wideningRefusedDecider: Decider<NoteWideningRefused, Refused, null> = {
  initialState: () => null,
  evolve: (s) => s,
  decide: (c) =>
    E.right([
      {
        type: 'EnvelopeWideningRefused',
        data: { tenant: c.tenant, job: c.job, run: c.run, child: c.child, field: c.field, reason: c.reason, refused_ms: c.now },
      },
    ]),
};
