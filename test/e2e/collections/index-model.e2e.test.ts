import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import { indexText, type Json } from '../../../domain/collections/values.ts';
import { collectionsIndexProjection } from '../../../projections/collections-index.ts';
import { rebuildProjection } from '../../../projections/runner.ts';
import { queryAgentIndex } from '../../../queries/collections-index.ts';
import { createRecords, type Records } from '../../../sdk/records.ts';
import { dumpReadModels } from '../../support/dump.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/** SPEC §12: the field index as a PostgreSQL read model of keyed digests, never values. */
const tag = `${Date.now()}`;
let svc: TestService;
let records: Records;
let digest: (text: string) => string;
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  const { key } = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'indexer' })).body as { key: string };
  const keys = await postgresKeystore(svc.pool, svc.masterKey);
  digest = (text) => keys.dedupeDigest('acme', `agent-records\n${text}`);
  records = createRecords({ url: svc.url, key, collections: { notes: { people: ['about'], fields: ['kind', 'n'] } } });
  for (let i = 0; i < 30; i++)
    await records.put('notes', `r${String(i).padStart(2, '0')}`, {
      about: i % 3 === 0 ? 'phone:+15550100177' : `person-${i % 4}`,
      kind: i % 2 === 0 ? `even-${tag}` : `odd-${tag}`,
      n: i % 5,
      color: i % 2 === 0 ? 'red' : 'blue',
    });
  await records.put('notes', 'r01', { about: 'person-9', kind: `replaced-${tag}` }); // n and color gone
  await records.delete('notes', 'r02');
  expect(await records.forgetPerson('+15550100177')).toBe(10);
  // A later declaration gains a field: the records already kept are indexed for it.
  const wider = createRecords({ url: svc.url, key, collections: { notes: { people: ['about'], fields: ['kind', 'n', 'color'] } } });
  await wider.query('notes');
  await svc.runner.catchUp();
}, 180_000);
afterAll(async () => svc?.stop());

const people = new Set(['about']);
const fromModel = async (where: Record<string, Json>, page: { limit: number; after?: { createdAt: number; id: string } }) =>
  queryAgentIndex(
    svc.pool,
    { tenant: 'acme', agent: 'indexer', collection: 'notes' },
    Object.entries(where).map(([field, v]) => ({ field, digest: digest(indexText(v, people.has(field))!) })),
    page,
  );

describe('the agent field index read model', () => {
  it('answers the same ids, in the same order, as the service for each query, page by page', async () => {
    const wheres: Record<string, Json>[] = [
      {},
      { kind: `even-${tag}` },
      { kind: `odd-${tag}`, n: 1 },
      { about: 'person-1' },
      { about: 'person-9', kind: `replaced-${tag}` },
      { color: 'red' },
      { color: 'blue', n: 3 },
      { about: 'phone:+15550100177' },
      { n: 4 },
    ];
    for (const where of wheres) {
      const service = await records.query('notes', where as never, { limit: 100 });
      expect(
        (await fromModel(where, { limit: 100 })).map((r) => r.id),
        JSON.stringify(where),
      ).toEqual(service.map((e) => e.id));
      // Paging by after: pages of 4 join to the whole.
      const paged: string[] = [];
      let after: { createdAt: number; id: string } | undefined;
      for (;;) {
        const page = await fromModel(where, { limit: 4, ...(after ? { after } : {}) });
        paged.push(...page.map((r) => r.id));
        if (page.length < 4) break;
        after = page.at(-1)!;
      }
      expect(paged).toEqual(service.map((e) => e.id));
    }
    // The forgotten, the deleted and the fields a replacement dropped are out of the index.
    expect(await fromModel({ about: 'phone:+15550100177' }, { limit: 100 })).toEqual([]);
    expect((await fromModel({}, { limit: 100 })).map((r) => r.id)).not.toContain('r02');
    expect((await fromModel({ color: 'blue' }, { limit: 100 })).map((r) => r.id)).not.toContain('r01');
  });

  it('holds ids, times and keyed digests, never a value, and rebuilds from the log to the same rows', async () => {
    const db = postgresReadModelStore(svc.pool);
    const before = await dumpReadModels(db, [collectionsIndexProjection]);
    expect(before.rm_agent_records!.length).toBe(19);
    const text = JSON.stringify(before);
    for (const value of [tag, 'person-1', '15550100177', 'red', 'blue']) expect(text).not.toContain(value);
    await rebuildProjection(svc.store, db, collectionsIndexProjection);
    expect(await dumpReadModels(db, [collectionsIndexProjection])).toEqual(before);
  });
});
