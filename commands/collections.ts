import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { addedFields, agentDecider, checkId, createdAtFor, type CollectionCommand } from '../domain/collections/decide.ts';
import { agentReadsStream, agentStream, type CollectionDeclaration, type CollectionEvent, type IndexEntry } from '../domain/collections/events.ts';
import { fitEntries, type FitAsk, type FittedEntries } from '../domain/collections/fit.ts';
import { RECORD_LIMITS } from '../domain/collections/limits.ts';
import { recordsRefusal, noCollection } from '../domain/collections/refusals.ts';
import { copyAgent, planAgent, postingKey, recordKey, type AgentState, type KeptRecord, type Posting } from '../domain/collections/state.ts';
import { indexText, indexTexts, isPlainObject, personNames, type Json, type JsonObject } from '../domain/collections/values.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { KeyShredder } from '../domain/ports/key-shredder.ts';
import type { SealContext, Sealer } from '../domain/ports/sealer.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { appendFacts } from './append-facts.ts';
import type { Snapshot, SnapshotStore } from '../domain/ports/snapshots.ts';
import type { EnvelopeMacs } from '../domain/ports/envelope-macs.ts';
import { packAgent, takeAgent, unpackAgent, type AgentTaken } from '../domain/collections/snapshot.ts';
import type { WrittenParts } from '../domain/shared/snapshot-parts.ts';
import { withParts } from '../queries/job-parts.ts';
import { aggregateLoader } from './aggregate-loader.ts';
import { handle, inspect, stateCache, type HandlerOptions, type StateCache } from './handle.ts';
import { streamQueues } from './stream-queue.ts';

export interface CollectionsDeps {
  readonly store: EventStore;
  readonly keys: Sealer & Pick<KeyShredder, 'shredRecord'> & Partial<Pick<KeyShredder, 'vacuum'>>;
  readonly now: () => number;
  readonly cache?: StateCache<AgentState>;
  /** Agent snapshots, MACed under the tenant's envelope key: an agent not cached is read from one and the events after it. */
  readonly snapshots?: SnapshotStore;
  readonly mac?: EnvelopeMacs;
  readonly onError?: (error: unknown) => void;
}

/**
 * Events between an agent's snapshots: a cold load reads at most this many events after one,
 * and the parts each of them names (its record's, and the index lists it leaves and joins).
 * A snapshot writes its head and only the parts changed since the last, so it is taken often:
 * at 500 events, the tail alone named most parts of a 10,000-record agent.
 */
const SNAPSHOT_EVERY = 50;

/** An exported record: an entry and its collection. */
export type Exported = Entry & { collection: string };

/** An export's JSON Lines, as the service writes them: one record a line, keys in this order. */
export const exportText = (records: readonly { collection: string; id: string; value?: unknown; createdAt: number; updatedAt: number }[]) =>
  records.map((e) => `${JSON.stringify({ collection: e.collection, id: e.id, value: e.value, createdAt: e.createdAt, updatedAt: e.updatedAt })}\n`).join('');

export interface Entry {
  readonly id: string;
  readonly value: JsonObject;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface After {
  readonly createdAt: number;
  readonly id: string;
}

type Result<T> = Promise<E.Either<Refusal, T>>;

/**
 * Data keys are per record incarnation (its createdAt): the sealer's plugin slot names the agent,
 * its scope the collection. A delete shreds the incarnation it deleted, never a record put
 * again under the same id after it.
 */
const keyOf = (id: string, created_ms: number) => `${id}\n${created_ms}`;
const sealContext = (tenant: string, agent: string, collection: string, id: string, created_ms: number, seq: number): SealContext => ({
  tenant,
  plugin: `agent:${agent}`,
  scope: collection,
  key: keyOf(id, created_ms),
  version: seq,
  data_subject: null,
});

const byAge = (a: { created_ms: number; id: string }, b: { created_ms: number; id: string }) =>
  a.created_ms - b.created_ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The agent records' command and read paths over one stream per (tenant, agent). Reads come
 * from the same folded stream the decider uses (cached, caught up under the stream's lock), so
 * an answer always reflects every event before it, including a declaration's re-index.
 */
export const collectionsService = (deps: CollectionsDeps) => {
  // An agent's folded state holds up to 10,000 records; 64 agents stay cached, the rest fold again from the log.
  const cache = deps.cache ?? stateCache<AgentState>(64);
  // Puts queued on one agent are decided in order and appended together (one writer per stream).
  const queues = streamQueues();
  const { snapshots, mac } = deps;
  const tenantOf = (stream: string) => stream.split(':')[1]!;
  /** Pure work on a state that may hold parts not read yet: the parts it names are read and it runs again. */
  const pure = <T>(work: () => T): Promise<T> => withParts(snapshots, work);
  /** Every look a decision's events make (the fold after it then never meets a part not read yet). */
  const looksOf = (state: AgentState, command: CollectionCommand) => {
    const decided = agentDecider.decide(command, state);
    if (E.isRight(decided)) for (const e of decided.right) planAgent(state, e);
  };
  /**
   * Reads, in two reads, the parts folding these events into `state` looks into: the records
   * they name, then the query index's lists those records leave and the events join.
   */
  const readTail = async (state: AgentState, events: readonly CollectionEvent[]) => {
    const named = events.flatMap((e) =>
      e.type === 'AgentRecordPut' || e.type === 'AgentRecordDeleted'
        ? [recordKey(e.data.collection, e.data.id)]
        : e.type === 'AgentPersonForgotten'
          ? e.data.records.map((r) => recordKey(r.collection, r.id))
          : e.data.indexed.map((r) => recordKey(r.collection, r.id)),
    );
    await pure(() => state.records.require(named));
    // Then the query index's lists they leave and join, in one read too.
    const posted = [
      ...named.flatMap((k) => {
        const r = state.records.get(k);
        return r ? r.index.map(([f, d]) => postingKey(r.collection, f, d)) : [];
      }),
      ...events.flatMap((e) =>
        e.type === 'AgentRecordPut'
          ? e.data.index.map((i) => postingKey(e.data.collection, i.field, i.digest))
          : e.type === 'AgentCollectionsDeclared'
            ? e.data.indexed.flatMap((r) => r.index.map((i) => postingKey(r.collection, i.field, i.digest)))
            : [],
      ),
    ];
    await pure(() => state.postings.require(posted));
  };
  const loader = aggregateLoader({
    store: deps.store,
    decider: agentDecider,
    cache,
    ...(snapshots && mac
      ? {
          snapshots: {
            store: snapshots,
            every: SNAPSHOT_EVERY,
            remembered: 1_000,
            open: (stream: string, found: Snapshot) => unpackAgent(found.state, stream, found.revision, mac(tenantOf(stream))),
            readParts: readTail,
            // The maps are persistent values, the rest copied: taken as they are now.
            take: (_: string, state: AgentState) => takeAgent(state),
            pack: (taken: AgentTaken, stream: string, revision: number, written: WrittenParts) =>
              packAgent(taken, stream, revision, mac(tenantOf(stream)), written),
            ...(deps.onError ? { onError: deps.onError } : {}),
          },
        }
      : {}),
  });
  // A conflict goes on from the state its committed appends left, never a fresh load (see HandlerOptions.copy).
  const options: HandlerOptions<CollectionEvent, AgentState> = { cache, queues, batch: 64, copy: copyAgent, ...loader.loading };
  const digest = (tenant: string, text: string) => deps.keys.dedupeDigest(tenant, `agent-records\n${text}`);
  const cause = (tenant: string) => ({ tenant, causation: randomUUID(), correlation: null });

  const withSnapshotParts = loader.retry;

  const run = (tenant: string, agent: string, command: (state: AgentState) => Promise<CollectionCommand> | CollectionCommand) =>
    withSnapshotParts(agentStream(tenant, agent), () =>
      handle<CollectionCommand, CollectionEvent, AgentState>(
        deps.store,
        agentStream(tenant, agent),
        agentDecider,
        async (state) => {
          const c = await command(state);
          // Everything the decision and its fold look into is read before `handle` decides (both are synchronous).
          if (snapshots) await pure(() => looksOf(state, c));
          return c;
        },
        cause(tenant),
        options,
      ),
    );

  const look = <T>(tenant: string, agent: string, f: (state: AgentState) => Promise<T> | T) =>
    withSnapshotParts(
      agentStream(tenant, agent),
      () => inspect<CollectionEvent, AgentState>(deps.store, agentStream(tenant, agent), agentDecider, f, options) as Promise<T>,
    );

  const open = async (tenant: string, agent: string, r: KeptRecord): Promise<Entry | null> => {
    const text = await deps.keys.open(sealContext(tenant, agent, r.collection, r.id, r.created_ms, r.seq), 'body', r.value);
    if (text === null) return null;
    return { id: r.id, value: JSON.parse(text) as JsonObject, createdAt: r.created_ms, updatedAt: r.updated_ms };
  };

  /** Appends the read's audit fact (ids, never values); the answer leaves only after it committed. */
  const audited = async <T>(
    tenant: string,
    agent: string,
    op: 'get' | 'query' | 'export',
    collection: string | null,
    records: readonly { collection: string; id: string }[],
    answer: T,
  ) => {
    const fact = {
      type: 'AgentRecordsRead' as const,
      data: { tenant, agent, op, collection, records: records.map((r) => ({ collection: r.collection, id: r.id })), read_ms: deps.now() },
    };
    await appendFacts(deps.store, agentReadsStream(tenant, agent), tenant, [fact]);
    return answer;
  };

  const index = (tenant: string, value: JsonObject, people: readonly string[], fields: readonly string[]): IndexEntry[] =>
    indexTexts(value, people, fields).map((e) => ({ field: e.field, digest: digest(tenant, e.text) }));

  /**
   * The records of `collection` whose index holds every wanted digest, oldest first, after the
   * page's start: the first `limit` of them, and whether more match. With fields asked, from the
   * query index (the records holding each value, with their createdAt), so only the records
   * answered are read; with none, every record of the collection.
   */
  const matchesOf = (
    state: AgentState,
    collection: string,
    wanted: readonly (readonly [string, string])[],
    afterOk: (r: { created_ms: number; id: string }) => boolean,
    limit: number,
  ): { hits: KeptRecord[]; beyond: boolean } => {
    if (wanted.length === 0) {
      const matched = [...state.records.values()].filter((r) => r.collection === collection && afterOk(r)).sort(byAge);
      return { hits: matched.slice(0, limit), beyond: matched.length > limit };
    }
    const keys = wanted.map(([f, d]) => postingKey(collection, f, d));
    state.postings.require(keys);
    const lists = keys.map((k) => state.postings.get(k) ?? []).sort((a, b) => a.length - b.length);
    const others = lists.slice(1).map((l) => new Set(l.map((p) => p.id)));
    const matched = lists[0]!.filter((p: Posting) => others.every((o) => o.has(p.id)) && afterOk(p)).sort(byAge);
    const page = matched.slice(0, limit).map((p) => recordKey(collection, p.id));
    state.records.require(page);
    return { hits: page.map((k) => state.records.get(k)!), beyond: matched.length > limit };
  };

  /** A query's page, shaped by `shape` before the read is audited, so the audit names exactly the ids answered. */
  const queryWith = async <T>(
    tenant: string,
    agent: string,
    collection: string,
    where: Readonly<Record<string, Json>>,
    page: { limit?: number; after?: After },
    /** `beyond`: records matched past `limit`, so a page that returned its last entry is not the end. */
    shape: (entries: Entry[], beyond: boolean) => { answer: T; returned: readonly { id: string }[] },
  ): Result<T> => {
    const limit = page.limit ?? RECORD_LIMITS.queryDefault;
    if (!Number.isInteger(limit) || limit < 1 || limit > RECORD_LIMITS.queryMax)
      return E.left(recordsRefusal('invalid', `limit ${limit} is out of range`, `ask for 1 to ${RECORD_LIMITS.queryMax} entries and page with after`));
    return look(tenant, agent, async (state) => {
      const declared = state.collections.get(collection);
      if (!declared) return E.left(noCollection(collection));
      const wanted: [string, string | null][] = [];
      for (const [field, v] of Object.entries(where)) {
        const person = declared.people.includes(field);
        if (!person && !declared.fields.includes(field))
          return E.left(recordsRefusal('invalid', `${collection} cannot be queried by ${field}`, 'declare it in fields'));
        const text = indexText(v, person);
        wanted.push([field, text === null ? null : digest(tenant, text)]);
      }
      // A value the index never holds (null, an object, a number in a people field) matches nothing.
      if (wanted.some(([, d]) => d === null)) return E.right(shape([], false).answer);
      const after = page.after;
      const afterOk = (r: { created_ms: number; id: string }) =>
        !after || r.created_ms > after.createdAt || (r.created_ms === after.createdAt && r.id > after.id);
      // Looked up before anything is opened or audited: a part not read yet is read and the look runs again.
      // Read into this very state (not thrown out to the retry, which may find it evicted and start over from the head).
      const { hits, beyond } = await pure(() => matchesOf(state, collection, wanted as [string, string][], afterOk, limit));
      const entries: Entry[] = [];
      for (const r of hits) {
        const e = await open(tenant, agent, r);
        if (e) entries.push(e);
      }
      const { answer, returned } = shape(entries, beyond);
      return E.right(
        await audited(
          tenant,
          agent,
          'query',
          collection,
          returned.map((e) => ({ collection, id: e.id })),
          answer,
        ),
      );
    });
  };

  /** Every record oldest first (after `after`), shaped before the read is audited. */
  const exportWith = <T>(
    tenant: string,
    agent: string,
    after: After | null,
    shape: (out: Exported[]) => { answer: T; returned: readonly { collection: string; id: string }[] },
  ): Promise<T> =>
    look(tenant, agent, async (state) => {
      const out: Exported[] = [];
      for (const r of (await pure(() => [...state.records.values()])).sort(byAge)) {
        if (after && !(r.created_ms > after.createdAt || (r.created_ms === after.createdAt && r.id > after.id))) continue;
        const e = await open(tenant, agent, r);
        if (e) out.push({ collection: r.collection, ...e });
      }
      const { answer, returned } = shape(out);
      return audited(tenant, agent, 'export', null, returned, answer);
    });

  return {
    async declare(tenant: string, agent: string, collections: readonly CollectionDeclaration[]): Result<{ collections: string[] }> {
      const decided = await run(tenant, agent, async (state) => {
        // Every record already kept is indexed for the fields this declaration adds, in the same event.
        const indexed: { collection: string; id: string; index: IndexEntry[] }[] = [];
        const kept = await pure(() => [...state.records.values()]);
        for (const added of addedFields(state, collections)) {
          if (added.isNew || added.people.length + added.fields.length === 0) continue;
          for (const r of kept) {
            if (r.collection !== added.name) continue;
            const entry = await open(tenant, agent, r);
            if (entry) indexed.push({ collection: r.collection, id: r.id, index: index(tenant, entry.value, added.people, added.fields) });
          }
        }
        return { kind: 'declare', tenant, agent, collections, indexed, now: deps.now() };
      });
      return E.map(({ state }: { state: AgentState }) => ({ collections: [...state.collections.keys()] }))(decided);
    },

    async collections(tenant: string, agent: string): Promise<string[]> {
      return look(tenant, agent, (s) => [...s.collections.keys()]);
    },

    async put(tenant: string, agent: string, collection: string, id: string, value: unknown, started_ms: number | null): Result<Omit<Entry, 'value'>> {
      const decided = await run(tenant, agent, async (state) => {
        const declared = state.collections.get(collection);
        const seq = state.seq + 1;
        const ok = declared && checkId(id) === null && isPlainObject(value);
        const now = deps.now();
        const created = await pure(() => createdAtFor(state, collection, id, now));
        return {
          kind: 'put',
          tenant,
          agent,
          collection,
          id,
          value,
          seq,
          // Sealed only when the decider can take it: a refused put must leave no data key behind.
          sealed: ok ? await deps.keys.seal(sealContext(tenant, agent, collection, id, created, seq), 'body', JSON.stringify(value)) : { k: '', n: '', c: '' },
          index: ok ? index(tenant, value, declared.people, declared.fields) : [],
          started_ms,
          now,
        };
      });
      if (E.isLeft(decided)) return decided;
      const put = decided.right.events[0];
      if (put?.type !== 'AgentRecordPut') throw new Error('a put decided no AgentRecordPut');
      return E.right({ id, createdAt: put.data.created_ms, updatedAt: put.data.updated_ms });
    },

    async get(tenant: string, agent: string, collection: string, id: string): Result<Entry | null> {
      return look(tenant, agent, async (state) => {
        if (!state.collections.has(collection)) return E.left(noCollection(collection));
        const r = await pure(() => state.records.get(`${collection}/${id}`));
        const entry = r ? await open(tenant, agent, r) : null;
        return E.right(await audited(tenant, agent, 'get', collection, entry ? [{ collection, id }] : [], entry));
      });
    },

    async query(
      tenant: string,
      agent: string,
      collection: string,
      where: Readonly<Record<string, Json>> = {},
      page: { limit?: number; after?: After } = {},
    ): Result<Entry[]> {
      return queryWith(tenant, agent, collection, where, page, (entries) => ({ answer: entries, returned: entries }));
    },

    /** A query answered fitted (SPEC §13): whole records, as many as fit, `next` to read on. */
    async queryFitted(
      tenant: string,
      agent: string,
      collection: string,
      where: Readonly<Record<string, Json>>,
      page: { limit?: number; after?: After },
      ask: FitAsk,
    ): Result<FittedEntries<Entry> & { next: After | null }> {
      return queryWith(tenant, agent, collection, where, page, (entries, beyond) => {
        const fitted = fitEntries(entries, ask, (shown) => JSON.stringify(shown), `this page of ${collection}`);
        // A page shows at least one record when any is left, so `next` always moves past what it returned.
        const last = fitted.entries.at(-1);
        const more = last !== undefined && (fitted.more || beyond);
        return { answer: { ...fitted, more, next: more ? { createdAt: last.createdAt, id: last.id } : null }, returned: fitted.entries };
      });
    },

    async delete(tenant: string, agent: string, collection: string, id: string): Result<{ deleted: boolean }> {
      let incarnation = 0;
      const decided = await run(tenant, agent, async (state) => {
        incarnation = (await pure(() => state.records.get(`${collection}/${id}`)))?.created_ms ?? 0;
        return { kind: 'delete', tenant, agent, collection, id, now: deps.now() };
      });
      if (E.isLeft(decided)) return decided;
      const deleted = decided.right.events.length > 0;
      if (deleted) await deps.keys.shredRecord(tenant, `agent:${agent}`, collection, keyOf(id, incarnation));
      return E.right({ deleted });
    },

    async forget(tenant: string, agent: string, person: string, also: readonly string[] = []): Result<{ deleted: number }> {
      const names = person === '' ? [] : personNames(person, also).map((n) => digest(tenant, JSON.stringify(n)));
      const incarnations = new Map<string, number>();
      const decided = await run(tenant, agent, async (state) => {
        for (const r of await pure(() => [...state.records.values()])) incarnations.set(`${r.collection}/${r.id}`, r.created_ms);
        return { kind: 'forget', tenant, agent, names, now: deps.now() };
      });
      if (E.isLeft(decided)) return decided;
      const forgot = decided.right.events[0];
      if (forgot?.type !== 'AgentPersonForgotten') throw new Error('a forget decided no AgentPersonForgotten');
      // After the event lands: their ciphertext in the log and on any topic is unreadable from here on.
      for (const r of forgot.data.records)
        await deps.keys.shredRecord(tenant, `agent:${agent}`, r.collection, keyOf(r.id, incarnations.get(`${r.collection}/${r.id}`) ?? 0));
      // As erasure does: no dead row of the keystore keeps a shredded key's bytes on disk.
      if (forgot.data.records.length > 0) await deps.keys.vacuum?.();
      return E.right({ deleted: forgot.data.records.length });
    },

    async export(tenant: string, agent: string): Promise<Exported[]> {
      return exportWith(tenant, agent, null, (out) => ({ answer: out, returned: out }));
    },

    /**
     * The export one record at a time, so no answer holds every value at once. Which records
     * is fixed under the stream's lock, and the read is audited with their ids before the
     * first is opened; one whose key a forget shreds meanwhile is left out (its id audited).
     */
    async exportStream(tenant: string, agent: string): Promise<AsyncIterable<Exported>> {
      const kept = await look(tenant, agent, async (state) => (await pure(() => [...state.records.values()])).sort(byAge));
      await audited(tenant, agent, 'export', null, kept, null);
      return (async function* () {
        for (const r of kept) {
          const e = await open(tenant, agent, r);
          if (e) yield { collection: r.collection, ...e };
        }
      })();
    },

    /** The export answered fitted (SPEC §13) from `after` on: whole records, as many as fit. */
    async exportFitted(tenant: string, agent: string, after: After | null, ask: FitAsk): Promise<FittedEntries<Exported> & { next: After | null }> {
      return exportWith(tenant, agent, after, (out) => {
        const fitted = fitEntries(out, ask, exportText, "the agent's records");
        const last = fitted.entries.at(-1);
        const more = last !== undefined && fitted.more;
        return { answer: { ...fitted, more, next: more ? { createdAt: last.createdAt, id: last.id } : null }, returned: fitted.entries };
      });
    },
  };
};

export type CollectionsService = ReturnType<typeof collectionsService>;
