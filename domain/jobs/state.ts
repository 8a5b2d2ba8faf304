import type { RecordEvent } from '../records/events.ts';
import type { CallMinted, JobEvent, JobStartedData } from './events.ts';
import type { EventOf } from '../events/schema.ts';
import { emptyKeyed, keyedDelete, keyedGet, keyedSet, keyedStubOn, type Keyed, type PartStub } from './keyed.ts';
import { envelopeHash, type SignedBlock } from '../envelopes/block.ts';

/** Everything a job stream holds: the job's own events, and its reads and label joins. */
export type JobStreamEvent = JobEvent | Exclude<RecordEvent, { type: 'RecordVersionWritten' }>;

export type JobStatus = 'running' | 'ended' | 'stopped';

/** A live call: what its admission and a retry of its step read. Ended calls leave the state. */
export interface CallState {
  readonly call: string;
  readonly step: number;
  readonly function: string;
  readonly idempotency_key: string;
  readonly startup: boolean;
  /** SHA-256 of the call's ticket, as its `CallMinted` recorded it. */
  readonly ticket_hash: string;
}

/** A step of the current run: the idempotency key every retry of it shares, and its live calls. */
export interface StepState {
  readonly key: string;
  readonly live: readonly string[];
}

export type JobState =
  | { readonly exists: false }
  | {
      readonly exists: true;
      readonly status: JobStatus;
      readonly start: JobStartedData;
      readonly ended_ms: number | null;
      /** The current run's live calls (call id → call): a call leaves when it ends. */
      readonly calls: Keyed<CallState>;
      /**
       * The current run's ended calls: call id → the first 16 hex digits of its ticket hash, so
       * a dead ticket is told apart from an unknown or forged one (64 bits cannot be guessed).
       */
      readonly ended: Keyed<string>;
      /** step → its idempotency key and live calls; kept after its calls end, so a retry shares the key. */
      readonly steps: Keyed<StepState>;
      /** The highest step minted in the current run (0 before the first): the next call's default is one more. */
      readonly last_step: number;
      /** The envelope chain of the current run, root block first. */
      readonly chain: readonly SignedBlock[];
      /** The current run's start-up: its budget and the plugins asked (SPEC §4); absent before. */
      readonly startup?: {
        readonly budget: number;
        readonly plugins: readonly { plugin: string; function: string; call: string }[];
        readonly assembled: boolean;
      };
    };

type Existing = Extract<JobState, { exists: true }>;

export const initialJobState = (): JobState => ({ exists: false });

/** A fresh run: no calls, no steps, no chain yet. */
const started = (start: JobStartedData): Existing => ({
  exists: true,
  status: 'running',
  start,
  ended_ms: null,
  calls: emptyKeyed(),
  ended: emptyKeyed(),
  steps: emptyKeyed(),
  last_step: 0,
  chain: [],
});

/** A minted call joins the live calls and its step; the step keeps the key it had. */
const callMinted = (s: Existing, d: EventOf<typeof CallMinted>['data']): Existing => {
  const call: CallState = {
    call: d.call,
    step: d.step,
    function: d.function,
    idempotency_key: d.idempotency_key,
    startup: d.startup,
    ticket_hash: d.ticket_hash,
  };
  const step = keyedGet(s.steps, d.step);
  return {
    ...s,
    calls: keyedSet(s.calls, d.call, call),
    steps: keyedSet(s.steps, d.step, { key: step?.key ?? d.idempotency_key, live: [...(step?.live ?? []), d.call] }),
    last_step: Math.max(s.last_step, d.step),
  };
};

/** What an ended call keeps of its ticket hash. */
export const endedMark = (ticketHash: string): string => ticketHash.slice(0, 16);

/** An ended call leaves the live calls and its step's live list; only its id is kept. */
const callEnded = (s: Existing, id: string): Existing => {
  const call = keyedGet(s.calls, id);
  if (!call) return s;
  const step = keyedGet(s.steps, call.step);
  return {
    ...s,
    calls: keyedDelete(s.calls, id),
    ended: keyedSet(s.ended, id, endedMark(call.ticket_hash)),
    steps: step ? keyedSet(s.steps, call.step, { key: step.key, live: step.live.filter((c) => c !== id) }) : s.steps,
  };
};

export const evolveJob = (state: JobState, event: JobStreamEvent): JobState => {
  switch (event.type) {
    case 'JobStarted':
      return started(event.data);
    case 'EnvelopeBlockAppended':
      return state.exists && event.data.run === state.start.run ? { ...state, chain: [...state.chain, event.data.signed] } : state;
    case 'EnvelopeWideningRefused':
      return state;
    case 'JobStopped':
      return state.exists && event.data.run === state.start.run ? { ...state, status: 'stopped', ended_ms: event.data.stopped_ms } : state;
    case 'JobEnded':
      return state.exists ? { ...state, status: 'ended', ended_ms: event.data.ended_ms } : state;
    case 'CallMinted':
      return state.exists ? callMinted(state, event.data) : state;
    case 'CallEnded':
      return state.exists ? callEnded(state, event.data.call) : state;
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

/**
 * The snapshot parts a fold of these events looks into that are not read yet, as far as the
 * events name them (a call's entries, a minted call's step): read together before the fold,
 * which reads any other it meets (an ended call's step) on its own.
 */
export const partsNamed = (state: JobState, events: readonly JobStreamEvent[]): PartStub[] => {
  if (!state.exists) return [];
  const stubs = new Set<PartStub>();
  const add = (stub: PartStub | null) => stub && stubs.add(stub);
  for (const e of events) {
    if (e.type === 'JobStarted') break;
    if (e.type === 'CallMinted') {
      add(keyedStubOn(state.calls, e.data.call));
      add(keyedStubOn(state.steps, e.data.step));
    } else if (e.type === 'CallEnded') {
      add(keyedStubOn(state.calls, e.data.call));
      add(keyedStubOn(state.ended, e.data.call));
    }
  }
  return [...stubs];
};

/** The live call with this id, if any. */
export const liveCall = (s: Existing, call: string): CallState | undefined => keyedGet(s.calls, call);

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
