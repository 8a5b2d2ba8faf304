import { createHmac } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { memoryKeystore } from '../../../adapters/keys/memory-keystore.ts';
import { collectionsService } from '../../../commands/collections.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';
import { stateCache } from '../../../commands/handle.ts';
import type { AgentState } from '../../../domain/collections/state.ts';
import { snapshotRows } from '../../support/snapshot-rows.ts';

/**
 * A look (a query, an export) on a cold agent meets parts of its snapshot not read yet; they
 * are read, and the look runs again. It must get further each time whatever else the instance
 * has cached meanwhile: when the agent's state was evicted between reading its parts and
 * looking again, a look that starts over from the head (new stubs: the parts read are lost)
 * and throws again never ends, and after its 20 tries answers an error (a 500 over HTTP).
 * The instance keeps 64 agents; more agents looked into at once than that evict one another
 * as a cache of 1 entry does here with 30.
 */
const mac = (tenant: string) => (input: string) => createHmac('sha256', `key-${tenant}`).update(input).digest('base64url');

describe('30 cold agents looked into at once, on an instance that keeps one', () => {
  it('each query and export answers every record its log holds', async () => {
    const store = memoryEventStore();
    const keys = memoryKeystore();
    const snapshots = snapshotRows().store;
    const warm = collectionsService({ store, keys, now: Date.now, snapshots, mac });
    // 30 agents on a cache of one: each look's state is evicted on almost every turn (before the fix, PartsMissing after 20 tries).
    const agents = Array.from({ length: 30 }, (_, i) => `a${i}`);
    for (const agent of agents) {
      expect(E.isRight(await warm.declare('acme', agent, [{ name: 'notes', people: [], fields: ['status'] }]))).toBe(true);
      for (let j = 0; j < 120; j++) expect(E.isRight(await warm.put('acme', agent, 'notes', `r${j}`, { status: j % 2 ? 'odd' : 'even' }, null))).toBe(true);
    }
    // The heads and parts are written after the answers.
    await snapshotWritesSettled();

    const cold = collectionsService({ store, keys, now: Date.now, snapshots, mac, cache: stateCache<AgentState>(1) });
    const queried = await Promise.all(agents.map((agent) => cold.query('acme', agent, 'notes', { status: 'odd' }, { limit: 100 })));
    expect(queried.map((q) => (E.isRight(q) ? q.right.length : q.left))).toEqual(agents.map(() => 60));
    const cold2 = collectionsService({ store, keys, now: Date.now, snapshots, mac, cache: stateCache<AgentState>(1) });
    const exported = await Promise.all(agents.map((agent) => cold2.export('acme', agent)));
    expect(exported.map((x) => x.length)).toEqual(agents.map(() => 120));
  }, 60_000);
});
