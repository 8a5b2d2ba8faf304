import type { RecordEvent } from '../records/events.ts';
import type { JobEvent, JobStartedData } from './events.ts';
import { envelopeHash, type SignedBlock } from '../envelopes/block.ts';

/** Everything a job stream holds: the job's own events, and its reads and label joins. */
export type JobStreamEvent = JobEvent | Exclude<RecordEvent, { type: 'RecordVersionWritten' }>;

export type JobStatus = 'running' | 'ended' | 'stopped';

export interface CallState {
  readonly call: string;
  readonly step: number;
  readonly function: string;
  readonly idempotency_key: string;
  readonly startup: boolean;
  readonly ended: boolean;
}

export type JobState =
  | { readonly exists: false }
  | {
      readonly exists: true;
      readonly status: JobStatus;
      readonly start: JobStartedData;
      readonly ended_ms: number | null;
      readonly calls: Readonly<Record<string, CallState>>;
      /** step → the idempotency key every retry of that step shares. */
      readonly steps: Readonly<Record<number, string>>;
      /** The envelope chain of the current run, root block first. */
      readonly chain: readonly SignedBlock[];
      /** The current run's start-up: its budget and the plugins asked (SPEC §4); absent before. */
      readonly startup?: {
        readonly budget: number;
        readonly plugins: readonly { plugin: string; function: string; call: string }[];
        readonly assembled: boolean;
      };
    };

export const initialJobState = (): JobState => ({ exists: false });

export const evolveJob = (state: JobState, event: JobStreamEvent): JobState => {
  switch (event.type) {
    case 'JobStarted':
      return { exists: true, status: 'running', start: event.data, ended_ms: null, calls: {}, steps: {}, chain: [] };
    case 'EnvelopeBlockAppended':
      return state.exists && event.data.run === state.start.run ? { ...state, chain: [...state.chain, event.data.signed] } : state;
    case 'EnvelopeWideningRefused':
      return state;
    case 'JobStopped':
      return state.exists && event.data.run === state.start.run ? { ...state, status: 'stopped', ended_ms: event.data.stopped_ms } : state;
    case 'JobEnded':
      return state.exists ? { ...state, status: 'ended', ended_ms: event.data.ended_ms } : state;
    case 'CallMinted': {
      if (!state.exists) return state;
      const d = event.data;
      const call: CallState = { call: d.call, step: d.step, function: d.function, idempotency_key: d.idempotency_key, startup: d.startup, ended: false };
      return { ...state, calls: { ...state.calls, [d.call]: call }, steps: { ...state.steps, [d.step]: d.idempotency_key } };
    }
    case 'CallEnded': {
      if (!state.exists) return state;
      const call = state.calls[event.data.call];
      return call ? { ...state, calls: { ...state.calls, [call.call]: { ...call, ended: true } } } : state;
    }
    case 'LabelsJoined': {
      if (!state.exists || event.data.run !== state.start.run) return state;
      const labels = [...new Set([...state.start.labels, ...event.data.labels])].sort();
      return { ...state, start: { ...state.start, labels } };
    }
    case 'RecordsRead':
      return state;
    case 'StartupPrepared':
      return state.exists && event.data.run === state.start.run
        ? { ...state, startup: { budget: event.data.budget, plugins: event.data.plugins, assembled: false } }
        : state;
    case 'StartupTextAssembled':
      return state.exists && state.startup && event.data.run === state.start.run ? { ...state, startup: { ...state.startup, assembled: true } } : state;
  }
};

export const jobView = (s: Extract<JobState, { exists: true }>) => {
  const { start_digest: _digest, startup_function: _startup, job, ...start } = s.start;
  const head = s.chain.at(-1)?.block;
  return {
    id: job,
    ...start,
    status: s.status,
    ended_ms: s.ended_ms,
    envelope: s.chain.length > 0 ? envelopeHash(s.chain) : null,
    epoch: head?.epoch ?? null,
    depth: head?.depth ?? 0,
    constraints_digest: head?.constraints_digest ?? null,
  };
};

export const envelopeView = (s: Extract<JobState, { exists: true }>) => ({ hash: envelopeHash(s.chain), blocks: s.chain });
