import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { eventRegistry } from '../../../domain/events/registry.ts';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * A scope of 20,000 records, then a service that has never seen it (a restart, or another
 * instance): its first puts are decided on the whole scope — stale, dedupe and the records cap
 * exact — with the state read from the scope's snapshot and the events after it.
 * (The time it takes is measured by the bench, not asserted here.)
 */
const RECORDS = 19_999;
const DAY = 86_400_000;
let a: TestService;
let b: TestService | undefined;
beforeAll(async () => {
  a = await startTestService();
  await a.admin('POST', '/v1/tenants', { id: 'acme', settings: { caps: { records: RECORDS + 1, bytes: 1_000_000_000 } } });
  await a.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
}, 60_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

describe('a cold 20,000-record scope', () => {
  it('decides the first puts of a fresh instance on the whole scope', async () => {
    const writer = await caller(a, 'acme', { purpose: 'routine:big' });
    const keystore = await postgresKeystore(a.pool, a.masterKey);
    const tenant = 'acme';
    const plugin = 'notes';
    const scope = 'project:big';
    const stream = `records:${tenant}:${plugin}:${scope}`;
    const now = a.clock.now();
    let revision: number | 'no_stream' = 'no_stream';
    for (let from = 0; from < RECORDS; from += 2000) {
      const events = [];
      for (let i = from; i < Math.min(RECORDS, from + 2000); i++) {
        const ctx = { tenant, plugin, scope, key: `k${i}`, version: 1, data_subject: null };
        events.push({
          event_id: randomUUID(),
          ...eventRegistry.encode({
            type: 'RecordVersionWritten',
            data: {
              ...ctx,
              body: { k: randomUUID(), n: '', c: '' },
              body_bytes: 10,
              kind: 'note',
              state: 'active',
              supersedes: null,
              ends_at: now + 30 * DAY,
              subject_kind: 'work',
              closed: false,
              purpose: 'routine:big',
              labels: [],
              created_ms: now,
              writer: { job: writer.job, run: 1, call: writer.call, step: 1, agent: 'scribe', plugin, tainted: false },
              request_key: `seed#${i}`,
              dedupe: i === 7 ? await keystore.seal(ctx, 'dedupe', keystore.dedupeDigest(tenant, 'seen before')) : null,
            },
          }),
          metadata: { tenant, causation_id: null, correlation_id: null },
        });
      }
      const appended = await a.store.append(stream, events, revision);
      if (E.isLeft(appended)) throw new Error(`seeding: ${JSON.stringify(appended.left)}`);
      revision = appended.right.nextExpectedRevision;
    }
    await a.runner.catchUp();
    // The first put after the seeding folds the whole stream (there is no snapshot yet) and leaves one.
    expect((await writer.rec({ op: 'put', scope, record_key: 'k0', body: {}, expect: 1 })).body).toMatchObject({ version: 2 });

    b = await startTestService({ shareWith: a });
    const c = await caller(b, 'acme', { purpose: 'routine:big' });
    // Warm the instance itself (its ticket, fence and keys) on a small scope, so the figure below is the big scope's.
    expect((await c.rec({ op: 'put', scope: 'project:small', record_key: 'warm', body: {}, expect: 0 })).status).toBe(200);
    const started = performance.now();
    const duplicate = await c.rec({ op: 'put', scope, record_key: 'new-1', body: {}, expect: 0, dedupe: 'seen before' });
    console.log(`cold first put into a ${RECORDS}-record scope: ${(performance.now() - started).toFixed(1)} ms`);
    expect(duplicate).toMatchObject({ status: 409, body: { error: 'duplicate', key: 'k7', version: 1 } });
    expect((await c.rec({ op: 'put', scope, record_key: 'k5', body: {}, expect: 0 })).body).toMatchObject({ error: 'stale', current: 1 });
    expect((await c.rec({ op: 'put', scope, record_key: 'k0', body: {}, expect: 1 })).body).toMatchObject({ error: 'stale', current: 2 });
    expect((await c.rec({ op: 'put', scope, record_key: 'k5', body: { again: true }, expect: 1 })).body).toMatchObject({ version: 2 });
    expect((await c.rec({ op: 'put', scope, record_key: 'last', body: {}, expect: 0 })).body).toMatchObject({ version: 1 });
    expect((await c.rec({ op: 'put', scope, record_key: 'one-too-many', body: {}, expect: 0 })).body).toMatchObject({
      error: 'full',
      cap: 'records',
      limit: RECORDS + 1,
    });
    // The instance that seeded it, its cache cold too, agrees.
    const d = await caller(a, 'acme', { purpose: 'routine:big' });
    expect((await d.rec({ op: 'put', scope, record_key: 'k5', body: {}, expect: 1 })).body).toMatchObject({ error: 'stale', current: 2 });
    expect((await d.rec({ op: 'put', scope, record_key: 'again-too-many', body: {}, expect: 0 })).body).toMatchObject({ error: 'full' });
  }, 300_000);
});
