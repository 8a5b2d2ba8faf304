import type { JobState } from './state.ts';
import { isKeyedShape } from './keyed.ts';

/**
 * A job's state as snapshot text, MACed under the tenant's envelope key: the fence trusts a
 * job's state only as the log holds it, and a snapshot row is as easy to edit with SQL as a
 * read model, so a snapshot whose MAC does not hold is ignored (the stream is replayed).
 * Format 2: the state as it is (its maps are tries of arrays; format 1 held objects of buckets
 * and is replayed instead), and for the fence's own snapshots the revisions of the current
 * run's blocks and their marks when folded.
 */
const FORMAT = 2;

/** What the MAC covers: the format, the stream, the revision and the text, so no snapshot moves to another stream or revision. */
const macInput = (stream: string, revision: number, text: string) => `job-snapshot|${FORMAT}|${stream}|${revision}|${text}`;

export interface JobSnapshot {
  readonly state: JobState;
  /** The fence's: the revisions of the current run's `EnvelopeBlockAppended` events, and their marks. */
  readonly blocks?: readonly number[];
  readonly marks?: string | null;
}

export const packJob = (snapshot: JobSnapshot, stream: string, revision: number, mac: (input: string) => string): string => {
  const text = JSON.stringify(snapshot);
  return `${FORMAT}.${mac(macInput(stream, revision, text))}.${text}`;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The state a snapshot holds, or null: another format, a MAC that does not hold, a shape this build does not read. */
export const unpackJob = (packed: string, stream: string, revision: number, mac: (input: string) => string): JobSnapshot | null => {
  const first = packed.indexOf('.');
  const second = packed.indexOf('.', first + 1);
  if (first < 0 || second < 0 || packed.slice(0, first) !== String(FORMAT)) return null;
  const text = packed.slice(second + 1);
  if (packed.slice(first + 1, second) !== mac(macInput(stream, revision, text))) return null;
  const parsed = JSON.parse(text) as unknown;
  if (!isObject(parsed) || !isObject(parsed.state)) return null;
  const { state, blocks, marks } = parsed;
  if (blocks !== undefined && !(Array.isArray(blocks) && blocks.every((b) => typeof b === 'number'))) return null;
  if (marks !== undefined && marks !== null && typeof marks !== 'string') return null;
  const fence = { ...(blocks === undefined ? {} : { blocks: blocks as number[] }), ...(marks === undefined ? {} : { marks }) };
  if (state.exists === false) return { state: { exists: false }, ...fence };
  const shaped =
    state.exists === true &&
    isKeyedShape(state.calls) &&
    isKeyedShape(state.ended) &&
    isKeyedShape(state.steps) &&
    typeof state.last_step === 'number' &&
    Array.isArray(state.chain) &&
    isObject(state.start);
  return shaped ? { state: state as unknown as JobState, ...fence } : null;
};
