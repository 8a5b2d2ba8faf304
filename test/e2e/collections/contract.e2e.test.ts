import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionsService } from '../../../commands/collections.ts';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { createRecords, memoryRecordsStore, type Records } from '../../../sdk/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { recordsContract } from './contract.ts';

const fillByPuts = async (records: Records, collection: string, n: number) => {
  for (let i = 0; i < n; i++) await records.put(collection, `fill${i}`, {});
};

recordsContract({
  name: 'memory',
  async fresh() {
    const store = memoryRecordsStore();
    return { open: (collections) => createRecords({ store, collections }) };
  },
  fill: fillByPuts,
});

let service: TestService;
let agents = 0;
const fills = new WeakMap<Records, { tenant: string; agent: string }>();
beforeAll(async () => {
  service = await startTestService();
  expect((await service.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

const issueKey = async (agent: string) => {
  const issued = await service.admin('POST', '/v1/tenants/acme/agent-keys', { agent });
  expect(issued.status).toBe(201);
  return issued.body as { key: string; id: string };
};

recordsContract({
  name: 'http',
  async fresh() {
    const agent = `agent-${++agents}`;
    const { key } = await issueKey(agent);
    return {
      open: (collections) => {
        const records = createRecords({ url: service.url, key, collections });
        fills.set(records, { tenant: 'acme', agent });
        return records;
      },
    };
  },
  // The service's own command path on its own store and keys, without an HTTP round trip each.
  async fill(records, collection, n) {
    const { tenant, agent } = fills.get(records)!;
    await records.collections; // the declaration goes with the first call
    await records.get(collection, 'none');
    const direct = collectionsService({ store: service.store, keys: await postgresKeystore(service.pool, service.masterKey), now: Date.now });
    // 64 at a time: puts queued on one agent are decided in one batch and appended together.
    for (let i = 0; i < n; i += 64)
      await Promise.all(Array.from({ length: Math.min(64, n - i) }, (_, j) => direct.put(tenant, agent, collection, `fill${i + j}`, {}, null)));
  },
});

describe('agent keys', () => {
  const call = (key: string) => fetch(`${service.url}/v1/agent/collections`, { headers: { authorization: `Bearer ${key}` } });

  it('a key is refused without the admin key, answers its agent, and is dead at once after api_key_revoked', async () => {
    expect((await fetch(`${service.url}/v1/tenants/acme/agent-keys`, { method: 'POST', body: '{}' })).status).toBe(401);
    const { key, id } = await issueKey('revokable');
    expect((await call(key)).status).toBe(200);
    const revoked = await service.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'api_key_revoked', key: id }] });
    expect(revoked.status).toBe(200);
    const after = await call(key);
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({
      error: 'unauthorized',
      message: 'records: the agent key was not accepted: send a live agent key as Authorization: Bearer <key>',
    });
  });

  it('a wrong secret, a made-up key, the admin key and no key are refused', async () => {
    const { key } = await issueKey('other');
    for (const bad of [`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`, 'ak.acme.00000000000000000000000000000000.x', 'test-admin-key-0123456789'])
      expect((await call(bad)).status).toBe(401);
    expect((await fetch(`${service.url}/v1/agent/collections`)).status).toBe(401);
  });

  it('an agent key for an unknown tenant is not issued, and the key is kept only as its SHA-256', async () => {
    expect((await service.admin('POST', '/v1/tenants/nope/agent-keys', { agent: 'a' })).status).toBe(404);
    const { key } = await issueKey('stored');
    const { rows } = await service.pool.query<{ n: string }>("SELECT count(*) AS n FROM custodian_events WHERE data::text LIKE '%' || $1 || '%'", [
      key.split('.')[3],
    ]);
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('two agents of one tenant see only their own records', async () => {
    const a = createRecords({ url: service.url, key: (await issueKey('alice')).key, collections: { notes: {} } });
    const b = createRecords({ url: service.url, key: (await issueKey('bob')).key, collections: { notes: {} } });
    await a.put('notes', 'n', { mine: true });
    expect(await b.get('notes', 'n')).toBeNull();
    expect(await a.get('notes', 'n')).toEqual({ mine: true });
  });
});
