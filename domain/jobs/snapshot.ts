import type { JobState } from './state.ts';
import { openSnapshot, sealSnapshot } from '../shared/sealed-snapshot.ts';
import { keyedOfStubs, PartStub, type Keyed } from './keyed.ts';
import { openPart, packMap, partDigest, partKey as sharedPartKey, type PackedPart, type WrittenParts } from '../shared/snapshot-parts.ts';

export type { WrittenParts } from '../shared/snapshot-parts.ts';

/**
 * A job's state as a snapshot: a head MACed under the tenant's envelope key, and parts. The
 * fence trusts a job's state only as the log holds it, and a snapshot row is as easy to edit
 * with SQL as a read model, so a head whose MAC does not hold is ignored (the stream is
 * replayed), and a part is used only when its text has the digest the head gives it.
 *
 * Format 3: the head holds what is small and read by every command — status, run, the start
 * (labels), the envelope chain, the highest step, start-up — and, for each of the three maps
 * that grow with the calls (live calls, ended calls' marks, steps), its size and the digest of
 * each of its non-empty parts (at most 256: one level-2 node of its trie, 16 leaves). A cold
 * load reads the head and then only the parts the command looks into, so its cost does not
 * grow with the calls a job made. A part unchanged since the last snapshot keeps its digest
 * and is not written again. (Formats 1 and 2 held the whole state in one text: replayed instead.)
 */
const FORMAT = 3;
const MAPS = ['calls', 'ended', 'steps'] as const;
type MapName = (typeof MAPS)[number];

/** What the MAC covers: the format, the stream, the revision and the text, so no head moves to another stream or revision. */
const KIND = 'job-snapshot';

/** Where a part is kept (beside its head, by map and address), its digest, and its text read back: as for every kind (domain/shared/snapshot-parts.ts). */
export { openPart, partDigest };
export const partKey = (stream: string, map: MapName, at: number) => sharedPartKey(stream, map, at);

export interface JobSnapshot {
  readonly state: JobState;
  /** The fence's: the revisions of the current run's `EnvelopeBlockAppended` events, and their marks. */
  readonly blocks?: readonly number[];
  readonly marks?: string | null;
}

export interface PackedJob {
  readonly head: string;
  /** The parts the head names that this writer has not written yet: written before the head. */
  readonly parts: readonly PackedPart[];
}

export const packJob = (
  snapshot: JobSnapshot,
  stream: string,
  revision: number,
  mac: (input: string) => string,
  written: WrittenParts = new WeakMap(),
): PackedJob => {
  const parts: PackedPart[] = [];
  const maps = (s: Extract<JobState, { exists: true }>) =>
    Object.fromEntries(
      MAPS.map((name) => {
        return [name, packMap(s[name] as Keyed<unknown>, stream, name, written, parts)];
      }),
    );
  const { state } = snapshot;
  const headState = state.exists ? { ...state, ...maps(state) } : state;
  const text = JSON.stringify({ ...snapshot, state: headState });
  return { head: sealSnapshot(KIND, String(FORMAT), text, stream, revision, mac), parts };
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const stubsOf = (v: unknown, stream: string, name: MapName): Keyed<unknown> | null => {
  if (!isObject(v) || typeof v.size !== 'number' || !Array.isArray(v.parts)) return null;
  const parts: [number, PartStub][] = [];
  for (const p of v.parts as unknown[]) {
    if (!Array.isArray(p) || p.length !== 2 || !Number.isInteger(p[0]) || p[0] < 0 || p[0] >= 256 || typeof p[1] !== 'string') return null;
    parts.push([p[0] as number, new PartStub(partKey(stream, name, p[0] as number), p[1])]);
  }
  return keyedOfStubs(v.size, parts);
};

/**
 * The state a snapshot's head holds, its maps' parts as stubs (read when looked into), or
 * null: another format, a MAC that does not hold, a shape this build does not read.
 */
export const unpackJob = (packed: string, stream: string, revision: number, mac: (input: string) => string): JobSnapshot | null => {
  const text = openSnapshot(packed, KIND, String(FORMAT), stream, revision, mac);
  if (text === null) return null;
  const parsed = JSON.parse(text) as unknown;
  if (!isObject(parsed) || !isObject(parsed.state)) return null;
  const { state, blocks, marks } = parsed;
  if (blocks !== undefined && !(Array.isArray(blocks) && blocks.every((b) => typeof b === 'number'))) return null;
  if (marks !== undefined && marks !== null && typeof marks !== 'string') return null;
  const fence = { ...(blocks === undefined ? {} : { blocks: blocks as number[] }), ...(marks === undefined ? {} : { marks }) };
  if (state.exists === false) return { state: { exists: false }, ...fence };
  if (state.exists !== true || typeof state.last_step !== 'number' || !Array.isArray(state.chain) || !isObject(state.start)) return null;
  const maps: Partial<Record<MapName, Keyed<unknown>>> = {};
  for (const name of MAPS) {
    const m = stubsOf(state[name], stream, name);
    if (!m) return null;
    maps[name] = m;
  }
  return { state: { ...state, ...maps } as unknown as JobState, ...fence };
};
