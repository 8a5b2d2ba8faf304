import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import type { TestService } from '../../support/service.ts';
import { shardedDeployment, startTenantServers, type ShardedInstance, type TenantServer } from '../../support/shards.ts';

// Three real PostgreSQL servers hold the tenants; a fourth (the run's) holds the placement. Two instances route.
let servers: TenantServer[] = [];
let deployment: Awaited<ReturnType<typeof shardedDeployment>>;
let a: ShardedInstance;
let b: ShardedInstance;
const tenants = Array.from({ length: 30 }, (_, i) => `shard-t${String(i).padStart(2, '0')}`);

/** The tenant's own stream in each database: where its events physically are. */
const holders = async (tenant: string): Promise<string[]> => {
  const out: string[] = [];
  for (const s of servers) {
    const client = new pg.Client({ connectionString: s.url });
    await client.connect();
    const { rows } = await client.query('SELECT 1 FROM custodian_events WHERE stream = $1 LIMIT 1', [`tenant:${tenant}`]);
    await client.end();
    if (rows.length > 0) out.push(s.name);
  }
  return out;
};

beforeAll(async () => {
  servers = await startTenantServers(3);
  deployment = await shardedDeployment(servers);
  a = await deployment.instance();
  b = await deployment.instance();
}, 180_000);

afterAll(async () => {
  await deployment?.close();
  for (const s of servers) await s.remove();
});

describe('tenants on several databases', () => {
  it('places each new tenant on the database with the fewest tenants (ties by name), whichever instance creates it', async () => {
    const placed: string[] = [];
    for (const [i, t] of tenants.entries()) {
      const created = await (i % 2 === 0 ? a : b).admin('POST', '/v1/tenants', { id: t });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      placed.push(created.body.database);
    }
    // Fewest first, ties by name: db1, db2, db3, db1, … — ten each.
    expect(placed).toEqual(tenants.map((_, i) => `db${(i % 3) + 1}`));
    for (const [i, t] of tenants.entries()) {
      const got = await (i % 2 === 0 ? b : a).admin('GET', `/v1/tenants/${t}`);
      expect(got.status).toBe(200);
      expect(got.body.database).toBe(placed[i]);
      expect(got.body.tenant.id).toBe(t);
      // Its whole state is in that database and in no other.
      expect(await holders(t)).toEqual([placed[i]]);
    }
  }, 300_000);

  it('writes each tenant through one instance and reads it back through the other, with tickets minted on either', async () => {
    for (const [i, t] of tenants.entries()) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      expect((await writer.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
      const w = await caller(writer as unknown as TestService, t);
      const put = await w.rec({ op: 'put', scope: 'tenant', record_key: 'where', body: { tenant: t }, expect: 0 });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      // A ticket names no tenant: the other instance finds the database that minted it.
      const r = await caller(reader as unknown as TestService, t);
      const got = await r.rec({ op: 'get', scope: 'tenant', record_key: 'where' });
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      expect(got.body.record.body).toEqual({ tenant: t });
      expect(got.body.record.version).toBe(1);
    }
  }, 600_000);

  it('places a tenant on the database its creation names, and refuses a name that is not a tenant database, placing nothing', async () => {
    const named = await a.admin('POST', '/v1/tenants', { id: 'shard-named', database: 'db3' });
    expect(named.status).toBe(201);
    expect(named.body.database).toBe('db3');
    expect(await holders('shard-named')).toEqual(['db3']);
    const unknown = await b.admin('POST', '/v1/tenants', { id: 'shard-nowhere', database: 'db9' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'invalid', field: 'database' });
    expect(unknown.body.message).toContain('db1, db2, db3');
    expect((await a.admin('GET', '/v1/tenants/shard-nowhere')).status).toBe(404);
    // The same id again answers that it exists, from the database that holds it.
    const again = await b.admin('POST', '/v1/tenants', { id: 'shard-named', database: 'db1' });
    expect(again.status).toBe(409);
    expect(await holders('shard-named')).toEqual(['db3']);
  }, 120_000);

  it('lists every tenant of every database in the console, and labels metrics by database', async () => {
    const listed = await b.admin('GET', '/v1/console/tenants');
    expect(listed.status).toBe(200);
    expect(listed.body.tenants).toEqual([...tenants, 'shard-named'].sort());
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    for (const name of ['db1', 'db2', 'db3']) {
      expect(metrics).toContain(`custodian_database_up{database="${name}"} 1`);
      expect(metrics).toMatch(new RegExp(`custodian_events_appended_total\\{[^}]*database="${name}"`));
    }
    // One HELP and TYPE per family, however many databases report it.
    expect(metrics.match(/^# TYPE custodian_events_appended_total /gm)).toHaveLength(1);
  }, 60_000);
});
