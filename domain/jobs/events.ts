import * as t from 'io-ts';
import { defineEvent, nullable, type EventOf } from '../events/schema.ts';
import { SignedBlockCodec } from '../envelopes/block.ts';

/** v1 data is v2 data: v2 only let the ceilings be null. */
const unchanged = { 1: (data: unknown) => data };

/**
 * v2: `max_depth` and `expires_ms` are null when no start and no tenant set them (SPEC §6).
 * v3: the optional `offload`, the threshold the job started with (SPEC §13); absent: 10,000.
 */
export const JobStarted = defineEvent(
  'JobStarted',
  3,
  t.intersection([
    t.type({
      tenant: t.string,
      job: t.string,
      /** 1 for the first start under this id; a start after the job ended begins the next run. */
      run: t.number,
      agent: t.string,
      plugin: t.string,
      install_gen: t.number,
      purpose: t.string,
      subject: t.string,
      data_subject: nullable(t.string),
      labels: t.array(t.string),
      scopes: t.array(t.string),
      startup_function: nullable(t.string),
      budget_usd: nullable(t.number),
      max_depth: nullable(t.number),
      expires_ms: nullable(t.number),
      constraints: t.unknown,
      /** The job this one was delegated from, or null for a root. */
      parent: nullable(t.string),
      start_digest: t.string,
      started_ms: t.number,
    }),
    t.partial({ offload: t.union([t.number, t.literal('off')]) }),
  ]),
  { ...unchanged, 2: (data: unknown) => data },
);

export const JobEnded = defineEvent('JobEnded', 1, t.type({ tenant: t.string, job: t.string, run: t.number, ended_ms: t.number }));

export const CallMinted = defineEvent(
  'CallMinted',
  1,
  t.type({
    tenant: t.string,
    job: t.string,
    run: t.number,
    call: t.string,
    step: t.number,
    function: t.string,
    /** SHA-256 of the ticket: the ticket itself is never stored. */
    ticket_hash: t.string,
    idempotency_key: t.string,
    startup: t.boolean,
    minted_ms: t.number,
  }),
);

export const CallEndReason = t.keyof({ ended: null, retried: null, job_ended: null });

export const CallEnded = defineEvent('CallEnded', 1, t.type({ tenant: t.string, job: t.string, call: t.string, reason: CallEndReason, ended_ms: t.number }));

/** One block of the job's envelope chain, MACed; a child's stream repeats its parent's blocks first. */
/** v2: a block's `max_depth` and `expires_ms` may be null (no ceiling). */
export const EnvelopeBlockAppended = defineEvent(
  'EnvelopeBlockAppended',
  2,
  t.type({ tenant: t.string, job: t.string, run: t.number, index: t.number, signed: SignedBlockCodec }),
  unchanged,
);

/** A child start asked for more than its parent holds: recorded on the parent's stream. */
export const EnvelopeWideningRefused = defineEvent(
  'EnvelopeWideningRefused',
  1,
  t.type({ tenant: t.string, job: t.string, run: t.number, child: t.string, field: t.string, reason: t.string, refused_ms: t.number }),
);

/** A revocation batch reached the job: it stops, and its calls are fenced. */
export const JobStopped = defineEvent(
  'JobStopped',
  1,
  t.type({ tenant: t.string, job: t.string, run: t.number, epoch: t.number, reasons: t.array(t.string), stopped_ms: t.number }),
);

/** The start-up calls were minted (SPEC §4): which plugins add start-up text, under what budget. */
export const StartupPrepared = defineEvent(
  'StartupPrepared',
  1,
  t.type({
    tenant: t.string,
    job: t.string,
    run: t.number,
    budget: t.number,
    plugins: t.array(t.type({ plugin: t.string, function: t.string, call: t.string })),
    prepared_ms: t.number,
  }),
);

/** The job's start-up text was assembled: what each plugin added and what was left out, never the text. */
export const StartupTextAssembled = defineEvent(
  'StartupTextAssembled',
  1,
  t.type({
    tenant: t.string,
    job: t.string,
    run: t.number,
    budget: t.number,
    plugins: t.array(t.string),
    kept: t.array(t.type({ plugin: t.string, entries: t.number })),
    left_out: t.array(t.type({ plugin: t.string, entries: t.number, reason: t.string })),
    tokens: t.number,
    assembled_ms: t.number,
  }),
);

export const jobEventSchemas = [
  JobStarted,
  JobEnded,
  CallMinted,
  CallEnded,
  EnvelopeBlockAppended,
  EnvelopeWideningRefused,
  JobStopped,
  StartupPrepared,
  StartupTextAssembled,
] as const;

export type JobStartedData = t.TypeOf<typeof JobStarted.codec>;
export type JobEvent =
  | EventOf<typeof EnvelopeBlockAppended>
  | EventOf<typeof EnvelopeWideningRefused>
  | EventOf<typeof JobStopped>
  | EventOf<typeof JobStarted>
  | EventOf<typeof JobEnded>
  | EventOf<typeof CallMinted>
  | EventOf<typeof CallEnded>
  | EventOf<typeof StartupPrepared>
  | EventOf<typeof StartupTextAssembled>;
