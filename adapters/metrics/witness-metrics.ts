import { Counter, Gauge } from 'prom-client';
import type { CustodianMetrics } from './registry.ts';

/** Every outcome a submission is counted under: a fixed set, whatever a witness answers. */
export const SUBMISSION_OUTCOMES = [
  'cosigned',
  'conflict',
  'refused_400',
  'refused_403',
  'refused_404',
  'refused_422',
  'refused_429',
  'refused_5xx',
  'refused_other',
  'bad_cosignature',
  'witness_ahead',
  'network_error',
  'error',
] as const;
export type SubmissionOutcome = (typeof SUBMISSION_OUTCOMES)[number];

/** A refusal's status as an outcome label (bounded: a witness chooses the status, never the label). */
export const refusedOutcome = (status: number): SubmissionOutcome =>
  status === 400 || status === 403 || status === 404 || status === 422 || status === 429
    ? (`refused_${status}` as SubmissionOutcome)
    : status >= 500 && status < 600
      ? 'refused_5xx'
      : 'refused_other';

export interface WitnessMetrics {
  submitted(witness: string, outcome: SubmissionOutcome): void;
  cosigned(witness: string, size: number, atMs: number): void;
}

/**
 * Witness submissions (c2sp.org/tlog-witness), labelled by the witness's key name — the
 * configured witnesses, never a tenant: submissions by outcome, and per witness the size of
 * the checkpoint it last cosigned (any tenant's) and the seconds since it did.
 */
export const registerWitnessMetrics = (metrics: CustodianMetrics, witnesses: readonly string[], now: () => number = Date.now): WitnessMetrics => {
  const registers = [metrics.registry];
  const last = new Map<string, { size: number; at: number }>();
  const submissions = new Counter({
    name: 'custodian_witness_submissions_total',
    help: 'Checkpoints submitted to witnesses (add-checkpoint), by witness and outcome',
    labelNames: ['witness', 'outcome'],
    registers,
  });
  // Every series exists from the start, at 0: a rate over a witness that never answered reads 0, not nothing.
  for (const witness of witnesses) for (const outcome of SUBMISSION_OUTCOMES) submissions.inc({ witness, outcome }, 0);
  new Gauge({
    name: 'custodian_witness_cosigned_size',
    help: 'Tree size of the checkpoint each witness last cosigned (absent until it has)',
    labelNames: ['witness'],
    registers,
    collect() {
      for (const [witness, l] of last) this.set({ witness }, l.size);
    },
  });
  new Gauge({
    name: 'custodian_witness_cosigned_age_seconds',
    help: 'Seconds since each witness last cosigned a checkpoint (absent until it has)',
    labelNames: ['witness'],
    registers,
    collect() {
      for (const [witness, l] of last) this.set({ witness }, Math.max(0, (now() - l.at) / 1000));
    },
  });
  return {
    submitted: (witness, outcome) => submissions.inc({ witness, outcome }),
    cosigned: (witness, size, at) => last.set(witness, { size, at }),
  };
};
