import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../domain/events/registry.ts';
import { envelopeHash, head, type Chain } from '../domain/envelopes/block.ts';
import { reaches, type Revocation } from '../domain/envelopes/reaches.ts';
import { endedMark, evolveJob, initialJobState, liveCall, partsNamed, type JobState, type JobStreamEvent } from '../domain/jobs/state.ts';
import { keyedGet } from '../domain/jobs/keyed.ts';
import type { EventStore, RecordedEvent } from '../domain/ports/event-store.ts';
import { ticketHash } from '../domain/shared/hash.ts';
import { jobStream, tenantStream } from '../domain/shared/names.ts';
import type { CallContext } from './call-context.ts';
import type { LogHeads } from './admission.ts';
import type { SnapshotStore } from '../domain/ports/snapshots.ts';
import type { EnvelopeMac } from '../domain/ports/envelope-macs.ts';
import { packJob, unpackJob, type WrittenParts } from '../domain/jobs/snapshot.ts';
import { readParts, SnapshotPartsGone, withParts } from './job-parts.ts';
import { tenantSnapshots } from './tenant-snapshots.ts';
import { writeLater, writeSnapshot } from './snapshot-write.ts';

/**
 * The fence (SPEC §6) decided on the event log, not on read models (issue 11): a tamperer
 * who can write SQL edits `rm_jobs` or `rm_calls` as easily as anything, so a read model only
 * finds the call; whether the call may act is folded from the job's stream, with the
 * envelope chain's MACs checked under the tenant's key.
 */

export interface FenceDeps {
  readonly store: EventStore;
  readonly chainVerifies: (tenant: string, chain: Chain) => boolean;
  readonly now: () => number;
  /** Job streams kept folded and verified; the least recently used goes first. */
  readonly capacity?: number;
  /**
   * The fence's own job snapshots, MACed under the tenant's envelope key: a job this instance
   * has not folded is read from its snapshot and the events after it, not replayed whole.
   */
  readonly snapshots?: SnapshotStore;
  readonly mac?: (tenant: string) => EnvelopeMac;
  readonly onError?: (error: unknown) => void;
}

/** Events between the fence's snapshots of a job. */
const SNAPSHOT_EVERY = 100;
/** The row a fence snapshot is kept under: no stream name starts so. */
const snapshotKey = (stream: string) => `fence|${stream}`;

/** A job stream folded up to `revision`, its chain verified once per change. */
interface Folded {
  readonly revision: number;
  readonly state: JobState;
  /** The revisions of the current run's `EnvelopeBlockAppended` events, and their marks when read. */
  readonly blockRevisions: readonly number[];
  readonly marks: string | null;
  /** Set when an event failed to decode: deny by default. */
  readonly corrupt: boolean;
  /** Whether the chain's MACs hold; null until a request first needs it after the chain moved. */
  readonly verified: boolean | null;
  /** The verified chain's envelope hash, to hold the read model's copy against. */
  readonly envelope: string | null;
}

const empty: Folded = {
  revision: -1,
  state: initialJobState(),
  blockRevisions: [],
  marks: null,
  corrupt: false,
  verified: null,
  envelope: null,
};

export type Verdict = { readonly ctx: CallContext } | { readonly refused: 'ticket' | 'revoked' };

export interface Fence {
  /**
   * The call context with every field the fence and the records path rely on taken from the
   * job's log (or null: refused). Taken from the log: the job's status and run, the call
   * (not ended, minted with this very ticket), its step, idempotency key and function, the
   * job's agent, plugin, purpose, data subject and labels (start labels and joins), and the
   * verified chain, whose head gives the expiry and the epoch.
   */
  admit(found: CallContext, ticket: string, heads?: LogHeads | null): Promise<CallContext | null>;
  /** `admit` with the reason of a refusal: `ticket` when the call is dead (ended, or minted again), `revoked` when the job is fenced. */
  judge(found: CallContext, ticket: string, heads?: LogHeads | null): Promise<Verdict>;
  /**
   * The block revisions the fence last folded for the job behind this ticket ([] when it knows
   * none): the admission statement reads their marks, so an unmoved job costs the fence no read.
   */
  blockRevisionsFor(ticket: string): readonly number[];
  /** How many chain verifications have run: a stream that has not moved costs none. */
  readonly verifications: () => number;
}

export const logFence = (deps: FenceDeps): Fence => {
  const capacity = deps.capacity ?? 10_000;
  const cache = new Map<string, Folded>();
  let verifications = 0;

  const foldPure = (from: Folded, events: readonly RecordedEvent[]): Folded => {
    let { state, corrupt, blockRevisions } = from;
    for (const r of events) {
      const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
      if (E.isLeft(decoded)) {
        corrupt = true;
        continue;
      }
      const event = decoded.right as JobStreamEvent;
      state = evolveJob(state, event) ?? state;
      if (event.type === 'JobStarted') blockRevisions = [];
      if (event.type === 'EnvelopeBlockAppended' && state.exists && event.data.run === state.start.run) blockRevisions = [...blockRevisions, r.revision];
    }
    const revision = events.at(-1)?.revision ?? from.revision;
    const chainMoved = !state.exists || !from.state.exists || state.chain !== from.state.chain || from.corrupt !== corrupt;
    // A moved chain is verified when a request first needs it, not on every read that built it.
    return {
      revision,
      state,
      blockRevisions,
      marks: from.marks,
      corrupt,
      ...(chainMoved ? { verified: null, envelope: null } : { verified: from.verified, envelope: from.envelope }),
    };
  };

  /** The fold, reading the snapshot parts it looks into (a state from a snapshot holds its maps' parts unread). */
  const fold = async (from: Folded, events: readonly RecordedEvent[]): Promise<Folded> => {
    if (deps.snapshots && events.length > 0) {
      const decoded = events.flatMap((r) => {
        const d = eventRegistry.decode(r.type, r.schema_version, r.data);
        return E.isRight(d) ? [d.right as JobStreamEvent] : [];
      });
      await readParts(deps.snapshots, partsNamed(from.state, decoded));
    }
    return withParts(deps.snapshots, () => foldPure(from, events));
  };

  const verify = (tenant: string, f: Folded): Folded => {
    if (f.verified !== null) return f;
    verifications++;
    const verified = !f.corrupt && f.state.exists && deps.chainVerifies(tenant, f.state.chain);
    return { ...f, verified, envelope: verified && f.state.exists ? envelopeHash(f.state.chain) : null };
  };

  /** The revision each job's newest fence snapshot is at, as this instance knows it (-1: none). */
  const snapshotAt = new Map<string, number>();
  /** The snapshot parts this fence wrote: a part unchanged since is named again, not written again. */
  const written: WrittenParts = new WeakMap();
  /** A verified fold that moved far enough past the last snapshot is kept as the next one, in the background. */
  const keep = (tenant: string, stream: string, folded: Folded) => {
    const { snapshots, mac } = deps;
    if (!snapshots || !mac || folded.corrupt || folded.verified !== true || folded.marks === null) return;
    if (folded.revision - (snapshotAt.get(stream) ?? -1) < SNAPSHOT_EVERY) return;
    if (snapshotAt.size > 4 * capacity) snapshotAt.clear();
    snapshotAt.set(stream, folded.revision);
    // Packed and written after the request is answered: the fold is a value, nothing changes it.
    const { revision, state, blockRevisions, marks } = folded;
    writeLater(async () => {
      const packed = packJob({ state, blocks: blockRevisions, marks }, snapshotKey(stream), revision, mac(tenant), written);
      await writeSnapshot(snapshots, snapshotKey(stream), revision, packed, written);
    }, deps.onError);
  };

  /** The fence's snapshot of a job, when it holds under the tenant's key; else null (the stream is replayed). */
  const snapshotOf = async (tenant: string, stream: string): Promise<Folded | null> => {
    const { snapshots, mac } = deps;
    if (!snapshots || !mac || replay.delete(stream)) return null;
    const found = await snapshots.load(snapshotKey(stream));
    const packed = found ? unpackJob(found.state, snapshotKey(stream), found.revision, mac(tenant)) : null;
    snapshotAt.set(stream, packed && found ? found.revision : -1);
    if (!found || !packed?.blocks || packed.marks === undefined) return null;
    return { ...empty, revision: found.revision, state: packed.state, blockRevisions: packed.blocks, marks: packed.marks };
  };

  const remember = (stream: string, folded: Folded) => {
    cache.delete(stream);
    cache.set(stream, folded);
    if (cache.size > capacity) cache.delete(cache.keys().next().value!);
    return folded;
  };

  /** A tenant this fence has not read: its batches from the tenant's MACed snapshot, caught up below from its revision. */
  const tenantBatchesFromSnapshot = async (tenant: string) => {
    if (!deps.snapshots || !deps.mac) return null;
    const found = await tenantSnapshots(deps.snapshots, deps.mac).load(tenant);
    return found ? { revision: found.revision, batches: found.batches } : null;
  };
  /** Each tenant's revocation batches as its stream in the log holds them, caught up per request. */
  const tenants = new Map<string, { revision: number; batches: readonly { epoch: number; revocations: readonly Revocation[] }[] }>();
  const revocationsSince = async (tenant: string, epoch: number, head: number | null): Promise<readonly Revocation[] | null> => {
    const known = tenants.get(tenant) ?? (await tenantBatchesFromSnapshot(tenant)) ?? { revision: -1, batches: [] };
    // The stream's head as read in the request's own statement: unmoved, nothing new to fold.
    const unmoved = head !== null && head === known.revision;
    const batches = [...known.batches];
    const events = unmoved ? [] : await deps.store.readStream(tenantStream(tenant), known.revision + 1);
    for (const r of events) {
      const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
      // A tenant log that does not verify (an edited or missing event) fences every job of it.
      if (E.isLeft(decoded)) return null;
      if (decoded.right.type === 'RevocationBatchApplied') batches.push({ epoch: decoded.right.data.epoch, revocations: decoded.right.data.revocations });
    }
    tenants.set(tenant, { revision: events.at(-1)?.revision ?? known.revision, batches });
    return batches.filter((b) => b.epoch > epoch).flatMap((b) => b.revocations);
  };

  /** A fold verified, cached, and kept as a snapshot when it moved far enough. */
  const kept = (tenant: string, stream: string, folded: Folded): Folded => {
    const verified = remember(stream, verify(tenant, folded));
    keep(tenant, stream, verified);
    return verified;
  };

  /** ticket hash → its job's stream, for the next request's hint (bounded like the fold cache). */
  const streamsByTicket = new Map<string, string>();
  const rememberTicket = (hash: string, stream: string) => {
    streamsByTicket.delete(hash);
    streamsByTicket.set(hash, stream);
    if (streamsByTicket.size > capacity) streamsByTicket.delete(streamsByTicket.keys().next().value!);
  };

  const readFrom = async (stream: string, base: Folded) => fold(base, await deps.store.readStream(stream, base.revision + 1));
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((r, i) => r === b[i]);

  /**
   * The job stream as the log holds it now. While its blocks' marks hold, only what was
   * appended is read; when a block changed in place or a new run brought new blocks, the
   * marks are taken first and the stream read whole after them, so an edit made at any
   * moment after that read shows in the next request's marks.
   */
  const current = async (tenant: string, stream: string, heads: LogHeads | null): Promise<Folded> => {
    // A store whose rows can be edited in place offers marks, so a block edited in place is verified again at once.
    const marks = deps.store.marks?.bind(deps.store);
    const cached = cache.get(stream);
    if (!marks) return kept(tenant, stream, await readFrom(stream, cached ?? empty));
    if (cached) {
      // Marks the admission statement already read, when they were read for these very blocks.
      const seen =
        heads && same(heads.blockRevisions, cached.blockRevisions)
          ? { revision: heads.jobRevision, marks: heads.marks }
          : await marks(stream, cached.blockRevisions);
      if (seen.marks === cached.marks) {
        if (seen.revision === cached.revision) return kept(tenant, stream, cached);
        const grown = await readFrom(stream, cached);
        if (same(grown.blockRevisions, cached.blockRevisions)) return kept(tenant, stream, grown);
      }
    }
    if (!cached) {
      // Cold: from the fence's snapshot when its blocks' marks still hold (no block edited in
      // place since it was taken) and no new run brought new blocks; else the whole stream.
      const snapshot = await snapshotOf(tenant, stream);
      if (snapshot) {
        const seen = await marks(stream, snapshot.blockRevisions);
        if (seen.marks === snapshot.marks) {
          const grown = await readFrom(stream, snapshot);
          if (same(grown.blockRevisions, snapshot.blockRevisions)) return kept(tenant, stream, grown);
        }
      }
    }
    let revisions = cached?.blockRevisions ?? (await readFrom(stream, empty)).blockRevisions;
    for (let attempt = 0; attempt < 3; attempt++) {
      const seen = await marks(stream, revisions);
      const whole = await readFrom(stream, empty);
      if (same(whole.blockRevisions, revisions)) return kept(tenant, stream, { ...whole, marks: seen.marks });
      revisions = whole.blockRevisions;
    }
    // The blocks keep changing under the reads: refuse this request, decide afresh on the next.
    cache.delete(stream);
    return { ...empty, corrupt: true };
  };

  /** Streams whose snapshot named a part that is gone: their next cold load replays the stream. */
  const replay = new Set<string>();

  /** `judgeOnce`, again on the stream replayed whole when a snapshot it started from named a part that is gone. */
  const judge = async (found: CallContext, ticket: string, heads: LogHeads | null = null): Promise<Verdict> => {
    try {
      return await judgeOnce(found, ticket, heads);
    } catch (error) {
      if (!(error instanceof SnapshotPartsGone)) throw error;
      const stream = jobStream(found.tenant, found.job);
      cache.delete(stream);
      if (replay.size > capacity) replay.clear();
      replay.add(stream);
      return judgeOnce(found, ticket, null);
    }
  };

  const judgeOnce = async (found: CallContext, ticket: string, heads: LogHeads | null): Promise<Verdict> => {
    const stream = jobStream(found.tenant, found.job);
    const log = await current(found.tenant, stream, heads);
    rememberTicket(ticketHash(ticket), stream);
    const { state } = log;
    if (log.corrupt || !log.verified || !state.exists || state.status !== 'running' || state.start.run !== found.run) return { refused: 'revoked' };
    // The call's entries, read from the snapshot's parts when the state came from one.
    await withParts(deps.snapshots, () => [liveCall(state, found.call), keyedGet(state.ended, found.call)]);
    // A read model that disagrees with the verified log has been edited: deny rather than pick one.
    if (envelopeHash(found.chain) !== log.envelope) return { refused: 'revoked' };
    const call = liveCall(state, found.call);
    const hash = ticketHash(ticket);
    // A call the log ended (a retried step ends the original) is a dead ticket, not a fenced job
    // (SPEC check 1); a call or ticket the log never minted means the read model was edited.
    if (!call) return keyedGet(state.ended, found.call) === endedMark(hash) ? { refused: 'ticket' } : { refused: 'revoked' };
    if (call.ticket_hash !== hash) return { refused: 'revoked' };
    const block = head(state.chain);
    // No ceiling is no expiry (SPEC §6: a job is never fenced by a default).
    const expires = Math.min(block.expires_ms ?? Infinity, state.start.expires_ms ?? Infinity);
    if (expires <= deps.now()) return { refused: 'revoked' };
    // Revocations come from the tenant's stream in the log, not their read model: deleting a
    // job's `JobStopped` and the revocation rows revives nothing while the batch is in the log.
    const since = await revocationsSince(found.tenant, head(state.chain).epoch, heads?.tenantRevision ?? null);
    if (since === null || since.some((r) => reaches(r, state.chain))) return { refused: 'revoked' };
    const start = state.start;
    const ctx: CallContext = {
      ...found,
      status: 'running',
      chain: state.chain,
      expires_ms: expires,
      step: call.step,
      idempotency_key: call.idempotency_key,
      startup: call.startup,
      agent: start.agent,
      agent_plugin: start.plugin,
      plugin: call.function.includes('/') ? call.function.slice(0, call.function.indexOf('/')) : start.plugin,
      purpose: start.purpose,
      data_subject: start.data_subject,
      labels: start.labels,
      job_revision: log.revision,
    };
    return { ctx };
  };

  return {
    judge,
    async admit(found, ticket, heads = null) {
      const verdict = await judge(found, ticket, heads);
      return 'ctx' in verdict ? verdict.ctx : null;
    },
    verifications: () => verifications,
    blockRevisionsFor(ticket) {
      const stream = streamsByTicket.get(ticketHash(ticket));
      return (stream === undefined ? undefined : cache.get(stream)?.blockRevisions) ?? [];
    },
  };
};
