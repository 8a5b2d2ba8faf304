import { afterAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { shardedDeployment, startTenantServers, type TenantServer } from '../../support/shards.ts';

let single: TestService | undefined;
let servers: TenantServer[] = [];
let deployment: Awaited<ReturnType<typeof shardedDeployment>> | undefined;

afterAll(async () => {
  await deployment?.close();
  await single?.stop();
  for (const s of servers) await s.remove();
});

describe('a deployment that grows past its one database', () => {
  it('keeps the tenants of the database it ran on where they are, once CUSTODIAN_DATABASES names it, and places new ones by fewest', async () => {
    single = await startTestService();
    expect((await single.admin('POST', '/v1/tenants', { id: 'veteran' })).status).toBe(201);
    expect((await single.admin('POST', '/v1/tenants/veteran/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
    const w = await caller(single, 'veteran');
    expect((await w.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { from: 'before' }, expect: 0 })).status).toBe(200);
    // (The single-database instance stays up: instances of one database may run side by side.)

    servers = await startTenantServers(1);
    deployment = await shardedDeployment([{ name: 'main', url: single.databaseUrl }, servers[0]!], { masterKey: single.masterKey, auditKey: single.auditKey });
    const instance = await deployment.instance();
    const got = await instance.admin('GET', '/v1/tenants/veteran');
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.database).toBe('main');
    const r = await caller(instance as unknown as TestService, 'veteran');
    const read = await r.rec({ op: 'get', scope: 'tenant', record_key: 'k' });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.record.body).toEqual({ from: 'before' });
    // main holds one tenant, db1 none: the next goes to db1.
    expect((await instance.admin('POST', '/v1/tenants', { id: 'newcomer' })).body.database).toBe('db1');
  }, 300_000);
});
