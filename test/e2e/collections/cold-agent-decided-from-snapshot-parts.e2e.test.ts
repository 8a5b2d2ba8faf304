import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { loadState } from '../../../commands/handle.ts';
import { agentDecider } from '../../../domain/collections/decide.ts';
import type { CollectionEvent } from '../../../domain/collections/events.ts';
import { indexed, type AgentState, type KeptRecord } from '../../../domain/collections/state.ts';
import { indexText } from '../../../domain/collections/values.ts';
import type { Sealer } from '../../../domain/ports/sealer.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * An agent's snapshot is a MACed head and parts named by digest (its records, and the query
 * index: the records holding each value of a declared field); a cold instance reads the head,
 * catches it up with the log, and reads only the parts a command or a query looks into.
 * Whatever two instances did around the snapshot, a cold third instance answers every query —
 * by one field, by two, by none, paged — and every get exactly as a scan of a replay of the
 * whole log does; and a part edited in its row is never used.
 */
let a: TestService;
let b: TestService;
let keys: Sealer;
/** The agent a run writes as (each its own stream, so no run meets another's limits): its key and stream, passed to every call of that run. */
interface Agent {
  readonly key: string;
  readonly stream: string;
}
const asAgent = async (agent: string): Promise<Agent> => ({
  key: ((await a.admin('POST', '/v1/tenants/acme/agent-keys', { agent })).body as { key: string }).key,
  stream: `agent:acme:${agent}`,
});
beforeAll(async () => {
  a = await startTestService();
  b = await startTestService({ shareWith: a });
  expect((await a.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  keys = await postgresKeystore(a.pool, a.masterKey);
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const call = async ({ key }: Agent, svc: TestService, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

const STATUSES = ['waiting', 'answered', 'closed'] as const;
const value = (status: number, listing: number, buyer: number) => ({ status: STATUSES[status]!, listing: `bike-${listing}`, buyer: `phone:+1555000${buyer}` });

/** The records a query answers, as a scan of every record of the replayed log has it (the definition, not the index). */
const scanned = (state: AgentState, collection: string, where: Record<string, string>, limit: number, after?: { createdAt: number; id: string }) => {
  const declared = state.collections.get(collection)!;
  const wanted = Object.entries(where).map(([f, v]) => [f, keys.dedupeDigest('acme', `agent-records\n${indexText(v, declared.people.includes(f))!}`)] as const);
  const byAge = (x: KeptRecord, y: KeptRecord) => x.created_ms - y.created_ms || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
  return [...state.records.values()]
    .filter((r) => r.collection === collection && wanted.every(([f, d]) => indexed(r, f) === d))
    .filter((r) => !after || r.created_ms > after.createdAt || (r.created_ms === after.createdAt && r.id > after.id))
    .sort(byAge)
    .slice(0, limit)
    .map((r) => r.id);
};

type Op = { kind: 'put'; on: 0 | 1; id: number; status: number; listing: number } | { kind: 'delete'; on: 0 | 1; id: number };
const on = fc.constantFrom<0 | 1>(0, 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('put' as const), on, id: fc.nat(60), status: fc.nat(2), listing: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), on, id: fc.nat(60) }) },
);
type Probe = { where: Record<string, string>; limit: number; paged: boolean };
const probeArb: fc.Arbitrary<Probe> = fc.record({
  where: fc.oneof(
    fc.constant({}),
    fc.nat(2).map((s) => ({ status: STATUSES[s]! })),
    fc.nat(7).map((l) => ({ listing: `bike-${l}` })),
    fc.tuple(fc.nat(2), fc.nat(7)).map(([s, l]) => ({ status: STATUSES[s]!, listing: `bike-${l}` })),
    fc.nat(9).map((n) => ({ buyer: `phone:+1555000${n}` })),
  ),
  limit: fc.integer({ min: 1, max: 30 }),
  paged: fc.boolean(),
});

/** Whether the agent's head is written in the parts format, at `revision` or past it (so it holds what was put by then). */
const headAt = async (stream: string, collection: string, revision: number) => {
  const { rows } = await a.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM custodian_snapshots WHERE stream = $1 AND revision >= $2 AND state LIKE '2.%' AND state LIKE '%' || $3 || '%'`,
    [stream, revision, collection],
  );
  return Number(rows[0]!.n) === 1;
};

/** The agent's head is written in the parts format, past `revision`, once the snapshot writes scheduled so far have ended. */
const headPast = async (stream: string, collection: string, revision: number) => {
  // Written after the answer that took it. Past `revision`: the head holds some of the records put after it (the rest are its tail).
  await snapshotWritesSettled();
  if (!(await headAt(stream, collection, revision))) throw new Error(`no snapshot of ${stream} past ${revision} was taken`);
};

/**
 * A fill's put, sent again while it is refused `unavailable` (the other instance kept moving
 * the agent's stream for 10 s, as eight writers on two instances do on a loaded machine:
 * nothing of it was written, and the answer says to send it again), a few times at most.
 */
const sent = async (send: () => Promise<{ status: number; body: any }>) => {
  let r = await send();
  for (let i = 0; i < 4 && r.status === 503 && r.body?.error === 'unavailable'; i++) r = await send();
  return r;
};

/** An agent of its own, a collection, 520 records put on both instances (so a snapshot holds them). */
const fill = async (collection: string): Promise<Agent> => {
  const who = await asAgent(`seller-${collection}`);
  expect(
    (await call(who, a, 'PUT', '/v1/agent/collections', { collections: { [collection]: { people: ['buyer'], fields: ['status', 'listing'] } } })).status,
  ).toBe(200);
  const revision = (await a.store.readStream(who.stream)).at(-1)!.revision;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let i = next++; i < 520; i = next++) {
        const r = await sent(() => call(who, w % 2 ? b : a, 'PUT', `/v1/agent/records/${collection}/f${i}`, { value: value(i % 3, i % 8, i % 10) }));
        expect([r.status, r.body]).toEqual([200, r.body]);
      }
    }),
  );
  await headPast(who.stream, collection, revision + 1);
  return who;
};

let world = 0;
describe("an agent's records past their snapshot, written on two instances at once", () => {
  it('are answered on a cold third instance exactly as a scan of a replay of the whole log', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 30 }), fc.array(probeArb, { minLength: 5, maxLength: 15 }), async (ops, probes) => {
        const collection = `c${world++}`;
        const who = await fill(collection);
        const answers = await Promise.all(
          ops.map((o) => {
            const svc = o.on ? b : a;
            const path = `/v1/agent/records/${collection}/f${o.id}`;
            return o.kind === 'put' ? call(who, svc, 'PUT', path, { value: value(o.status, o.listing, o.id % 10) }) : call(who, svc, 'DELETE', path);
          }),
        );
        // Each answered as the log has it, or refused `unavailable` with nothing written (the log the cold instance is held to has none of it).
        for (const r of answers) if (r.status !== 503 || r.body.error !== 'unavailable') expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);

        const c = await startTestService({ shareWith: a });
        try {
          const { state } = await loadState<CollectionEvent, AgentState>(c.store, who.stream, agentDecider);
          for (const p of probes) {
            const first = await call(who, c, 'POST', `/v1/agent/records/${collection}/query`, { where: p.where, limit: p.limit });
            expect(first.status).toBe(200);
            const ids = (first.body.entries as { id: string }[]).map((e) => e.id);
            expect(ids, JSON.stringify(p)).toEqual(scanned(state, collection, p.where, p.limit));
            const last = first.body.entries.at(-1) as { id: string; createdAt: number } | undefined;
            if (p.paged && last) {
              const after = { createdAt: last.createdAt, id: last.id };
              const second = await call(who, c, 'POST', `/v1/agent/records/${collection}/query`, { where: p.where, limit: p.limit, after });
              expect((second.body.entries as { id: string }[]).map((e) => e.id)).toEqual(scanned(state, collection, p.where, p.limit, after));
            }
          }
          for (const id of [0, 1, 2, 3, 59, 60, 519]) {
            const got = await call(who, c, 'GET', `/v1/agent/records/${collection}/f${id}`);
            expect(got.status, `f${id}`).toBe(state.records.has(`${collection}/f${id}`) ? 200 : 404);
          }
          // A put and a delete on the cold instance move the index as they move the log.
          expect((await call(who, c, 'PUT', `/v1/agent/records/${collection}/f1`, { value: value(2, 7, 1) })).status).toBe(200);
          expect((await call(who, c, 'DELETE', `/v1/agent/records/${collection}/f2`)).status).toBe(200);
          const after = (await loadState<CollectionEvent, AgentState>(c.store, who.stream, agentDecider)).state;
          for (const where of [{ status: 'closed' }, { listing: 'bike-7' }, { status: 'closed', listing: 'bike-7' }, {}] as Record<string, string>[]) {
            const r = await call(who, c, 'POST', `/v1/agent/records/${collection}/query`, { where, limit: 100 });
            expect((r.body.entries as { id: string }[]).map((e) => e.id)).toEqual(scanned(after, collection, where, 100));
          }
        } finally {
          await c.stop();
        }
      }),
      // No shrinking: each run fills a collection of its own (hundreds of puts), so shrinking a failure ran on for many
      // minutes past any bound and hid it; the failing run is reported as it was drawn, with the seed that replays it.
      { numRuns: 3, endOnFailure: true },
    );
  }, 600_000);
});

describe("an agent's snapshot parts, edited in their rows", () => {
  it('are never used: a cold instance folds the agent from its log and answers as its log', async () => {
    const collection = 'edited';
    const who = await fill(collection);
    // The head must hold f3: `fill` waits for the first head past the declaration, and on a loaded
    // machine f3's put, refused `unavailable` and sent again, can land after it, or among the last
    // events, which no snapshot holds yet. Puts of other records move the cadence on until one does.
    const f3 = (await a.store.readStream(who.stream))
      .filter((e) => {
        const put = e.data as { collection?: string; id?: string };
        return e.type === 'AgentRecordPut' && put.collection === collection && put.id === 'f3';
      })
      .at(-1)!.revision;
    for (let extra = 0; await snapshotWritesSettled(), !(await headAt(who.stream, collection, f3)); extra++) {
      const r = await sent(() => call(who, a, 'PUT', `/v1/agent/records/${collection}/x${extra}`, { value: value(0, 0, 0) }));
      expect([r.status, r.body]).toEqual([200, r.body]);
    }
    // The query index's part holding the records of listing bike-3 in this collection, a record's id in it changed.
    const { rows } = await a.pool.query<{ stream: string; state: string }>(
      `SELECT stream, state FROM custodian_snapshots WHERE stream LIKE $1 AND state LIKE '%"id":"f3",%'`,
      [`${who.stream}#postings.%`],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const edited = row.state.replaceAll('"id":"f3",', '"id":"f4",');
      await a.pool.query('UPDATE custodian_snapshots SET state = $2 WHERE stream = $1', [row.stream, edited]);
    }
    const c = await startTestService({ shareWith: a });
    try {
      const { state } = await loadState<CollectionEvent, AgentState>(c.store, who.stream, agentDecider);
      for (const where of [{ listing: 'bike-3' }, { status: STATUSES[0] }, { buyer: 'phone:+15550003' }] as Record<string, string>[]) {
        const r = await call(who, c, 'POST', `/v1/agent/records/${collection}/query`, { where, limit: 100 });
        expect((r.body.entries as { id: string }[]).map((e) => e.id)).toEqual(scanned(state, collection, where, 100));
      }
    } finally {
      await c.stop();
    }
  }, 240_000);
});
