import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import type { TestService } from '../../support/service.ts';
import { shardedDeployment, startTenantServers, type ShardedInstance, type TenantServer } from '../../support/shards.ts';

let servers: TenantServer[] = [];
let deployment: Awaited<ReturnType<typeof shardedDeployment>>;
let a: ShardedInstance;
let b: ShardedInstance;
const callers = new Map<string, Caller>();
let version = 0;

beforeAll(async () => {
  servers = await startTenantServers(3);
  deployment = await shardedDeployment(servers);
  a = await deployment.instance();
  b = await deployment.instance();
  for (const name of ['db1', 'db2', 'db3']) {
    const t = `iso-${name}`;
    expect((await a.admin('POST', '/v1/tenants', { id: t, database: name })).status).toBe(201);
    expect((await a.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
    callers.set(t, await caller(b as unknown as TestService, t));
  }
  for (const c of callers.values()) expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { n: 0 }, expect: 0 })).status).toBe(200);
  version = 1;
}, 180_000);

afterAll(async () => {
  await deployment?.close();
  for (const s of servers) await s.remove();
});

describe('a tenant database that stops answering', () => {
  it('makes only its tenants answer 503 unavailable; a put on a tenant of another database is unaffected; it recovers by itself', async () => {
    await servers[1]!.stop();
    for (const instance of [a, b]) {
      const read = await instance.admin('GET', '/v1/tenants/iso-db2');
      expect(read.status).toBe(503);
      expect(read.body).toMatchObject({ error: 'unavailable' });
      expect(typeof read.body.message).toBe('string');
      const put = await callers.get('iso-db2')!.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { n: 1 }, expect: 1 });
      expect(put.status).toBe(503);
      expect(put.body).toMatchObject({ error: 'unavailable' });
    }
    // The others: reads and puts answer as before, through either instance.
    for (const t of ['iso-db1', 'iso-db3']) {
      expect((await a.admin('GET', `/v1/tenants/${t}`)).status).toBe(200);
      expect((await b.admin('GET', `/v1/tenants/${t}`)).status).toBe(200);
      const put = await callers.get(t)!.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { n: 1 }, expect: version });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    // Creating a tenant on a database that answers still works; the console still lists every tenant.
    expect((await b.admin('POST', '/v1/tenants', { id: 'iso-new', database: 'db3' })).status).toBe(201);
    expect((await a.admin('GET', '/v1/console/tenants')).body.tenants).toEqual(['iso-db1', 'iso-db2', 'iso-db3', 'iso-new']);
    const health = await (await fetch(`${a.url}/healthz`)).json();
    expect(health).toMatchObject({ status: 'degraded', control: 'ok', databases: { db1: 'ok', db2: 'unavailable', db3: 'ok' } });
    expect(await (await fetch(`${b.url}/metrics`)).text()).toContain('custodian_database_up{database="db2"} 0');

    // Back: its tenants answer again with nothing restarted. A request right after the server
    // returns may still meet a connection cut by the stop (each such one is dropped as it
    // fails); a client retries a 503, as its Retry-After says.
    await servers[1]!.start();
    for (const instance of [a, b]) {
      let read = await instance.admin('GET', '/v1/tenants/iso-db2');
      for (let again = 0; again < 10 && read.status === 503; again++) {
        await sleep(100);
        read = await instance.admin('GET', '/v1/tenants/iso-db2');
      }
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.database).toBe('db2');
    }
    let put = await callers.get('iso-db2')!.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { n: 1 }, expect: 1 });
    for (let again = 0; again < 10 && put.status === 503; again++) {
      await sleep(100);
      put = await callers.get('iso-db2')!.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { n: 1 }, expect: 1 });
    }
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.version).toBe(2);
  }, 300_000);
});
