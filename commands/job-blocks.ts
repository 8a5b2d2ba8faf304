import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../domain/events/registry.ts';
import type { JobState, JobStreamEvent } from '../domain/jobs/state.ts';
import type { RecordedEvent } from '../domain/ports/event-store.ts';
import type { Codec, Folded, StateCache } from './handle.ts';

/** A job stream's current-run block revisions, and their marks when last checked (null: not yet). */
export interface KnownBlocks {
  readonly revisions: number[];
  marks: string | null;
}

/**
 * What a cached job state rests on beyond its revision: a job's blocks can be edited in place
 * with SQL without the stream growing, so a state kept between commands is only trusted while
 * its blocks' marks hold (as the fence does). Learned from the events folded, kept per stream.
 */
export const jobBlocks = (capacity: number) => {
  const known = new Map<string, KnownBlocks>();
  /** Streams whose next load replays the whole log: no cache, no snapshot. */
  const replay = new Set<string>();
  const bound = () => {
    if (known.size > capacity) known.delete(known.keys().next().value!);
    if (replay.size > capacity) replay.clear();
  };

  /** The registry's codec, watching the blocks of each stream it reads. */
  const codec = (stream: string): Codec<JobStreamEvent> => ({
    read: (r: RecordedEvent) => {
      const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
      if (E.isLeft(decoded)) throw new Error(`stream ${stream} revision ${r.revision}: ${decoded.left}`);
      const event = decoded.right as JobStreamEvent;
      if (event.type === 'JobStarted') {
        known.delete(stream);
        known.set(stream, { revisions: [], marks: null });
        bound();
      } else if (event.type === 'EnvelopeBlockAppended') {
        const k = known.get(stream);
        if (k) {
          k.revisions.push(r.revision);
          k.marks = null;
        }
      }
      return event;
    },
    write: (events) => events as never,
  });

  return {
    codec,
    get: (stream: string) => known.get(stream),
    /** Blocks read back from a snapshot, with the marks they had when it was taken. */
    restore(stream: string, revisions: readonly number[], marks: string) {
      known.delete(stream);
      known.set(stream, { revisions: [...revisions], marks });
      bound();
    },
    /** The stream is replayed whole on its next load (its cache and snapshot set aside). */
    distrust(stream: string) {
      known.delete(stream);
      replay.add(stream);
    },
    /** Whether the next load must replay the whole stream (asked once: the replay clears it). */
    replaying: (stream: string) => replay.delete(stream),
    isReplaying: (stream: string) => replay.has(stream),
  };
};

/** A least-recently-used cache of job states that a distrusted stream is taken out of. */
export const jobStateCache = (capacity: number, blocks: ReturnType<typeof jobBlocks>): StateCache<JobState> => {
  const entries = new Map<string, Folded<JobState>>();
  return {
    get(stream) {
      if (blocks.isReplaying(stream)) {
        entries.delete(stream);
        return undefined;
      }
      const entry = entries.get(stream);
      if (entry) {
        entries.delete(stream);
        entries.set(stream, entry);
      }
      return entry;
    },
    set(stream, folded) {
      entries.delete(stream);
      entries.set(stream, folded);
      if (entries.size > capacity) entries.delete(entries.keys().next().value!);
    },
    delete(stream) {
      entries.delete(stream);
    },
  };
};
