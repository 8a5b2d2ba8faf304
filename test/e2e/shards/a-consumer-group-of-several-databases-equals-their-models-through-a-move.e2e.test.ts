import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { startProjectionConsumer, type ProjectionConsumer } from '../../../adapters/bus/kafka/projection-consumer.ts';
import { applySchema } from '../../../adapters/postgres/schema.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import { busProjections } from '../../../projections/all.ts';
import { freshDatabase } from '../../support/database.ts';
import { dumpReadModels } from '../../support/dump.ts';
import { caller } from '../../support/records.ts';
import type { TestService } from '../../support/service.ts';
import { shardedDeployment, startTenantServers, type ShardedInstance, type TenantServer } from '../../support/shards.ts';

/**
 * Kafka with several tenant databases on a real broker: each database's relay publishes its own
 * log to one topic (key = stream), and a consumer group in another database builds the models
 * of every tenant, whichever database holds it, including a tenant moved between them.
 */
const brokers = inject('kafkaBrokers');

const until = async (what: string, check: () => Promise<boolean>, ms = 120_000) => {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await check().catch((error: unknown) => {
      if ((error as { retriable?: unknown }).retriable === true) return false;
      throw error;
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`not reached in ${ms / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/** Every model's rows as one set, whatever database (or consumer) holds them. */
const rowsOf = async (pools: readonly pg.Pool[]) => {
  const out: Record<string, string[]> = {};
  for (const pool of pools)
    for (const [table, rows] of Object.entries(await dumpReadModels(pool, busProjections()))) (out[table] ??= []).push(...rows.map((r) => JSON.stringify(r)));
  for (const rows of Object.values(out)) rows.sort();
  return out;
};

if (!brokers) describe('kafka with several databases', () => it.skip(`skipped: ${inject('kafkaSource')}`, () => undefined));
else
  describe(`kafka with several databases (broker ${brokers})`, () => {
    const topic = `custodian-shards-${randomUUID()}`;
    const group = `custodian-shards-group-${randomUUID()}`;
    const kafka = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING });
    let servers: TenantServer[] = [];
    let deployment: Awaited<ReturnType<typeof shardedDeployment>>;
    let a: ShardedInstance;
    let target: Awaited<ReturnType<typeof freshDatabase>>;
    let targetPool: pg.Pool;
    let consumer: ProjectionConsumer | null = null;

    const databasePools = () => [...a.cells.values()].map((c) => c.pool);
    const totalEvents = async () => {
      let n = 0;
      for (const pool of databasePools()) n += Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM custodian_events')).rows[0]!.n);
      return n;
    };
    const appliedByGroup = async () =>
      Number(
        (await targetPool.query<{ n: string }>('SELECT coalesce(sum(applied), 0) AS n FROM custodian_consumer_offsets WHERE group_id = $1', [group])).rows[0]!
          .n,
      );

    /** The group's models equal the databases' together, and it applied each event of theirs exactly once. */
    const groupEqualsDatabases = async () => {
      for (const cell of a.cells.values()) await cell.runner.catchUp();
      let last = { expected: {}, got: {} as unknown, total: 0, applied: 0 };
      await until('the consumer group holds every event of both databases', async () => {
        last = { expected: await rowsOf(databasePools()), got: await rowsOf([targetPool]), total: await totalEvents(), applied: await appliedByGroup() };
        return last.applied >= last.total && JSON.stringify(last.got) === JSON.stringify(last.expected);
      }).catch((error: unknown) => {
        expect(last.got).toEqual(last.expected);
        throw error;
      });
      expect(last.applied).toBe(last.total);
    };

    const write = async (tenant: string, round: string, n: number) => {
      const c = await caller(a as unknown as TestService, tenant);
      for (let i = 0; i < n; i++)
        expect((await c.rec({ op: 'put', scope: 'tenant', record_key: `${round}-${i % 3}`, body: { i }, expect: Math.floor(i / 3) })).status).toBe(200);
    };

    beforeAll(async () => {
      servers = await startTenantServers(2);
      deployment = await shardedDeployment(servers, undefined, { brokers: brokers.split(','), topic, partitions: 3 });
      a = await deployment.instance();
      target = await freshDatabase();
      targetPool = createPool(target.url, 4);
      await applySchema(targetPool);
      consumer = await startProjectionConsumer(kafka, postgresReadModelStore(targetPool), busProjections(), { groupId: group, topic });
    }, 240_000);

    afterAll(async () => {
      await consumer?.stop();
      await targetPool?.end();
      await target?.drop();
      await deployment?.close();
      for (const s of servers) await s.remove();
      const admin = kafka.admin();
      await admin.connect();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    });

    it("builds every tenant's models from both databases' relays, each event once, messages naming their database", async () => {
      for (const [tenant, database] of [
        ['k1', 'db1'],
        ['k2', 'db1'],
        ['k3', 'db2'],
        ['k4', 'db2'],
      ] as const) {
        expect((await a.admin('POST', '/v1/tenants', { id: tenant, database })).status).toBe(201);
        expect((await a.admin('POST', `/v1/tenants/${tenant}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
        await write(tenant, 'r1', 7);
      }
      await groupEqualsDatabases();
      const { rows } = await targetPool.query<{ source: string }>(
        'SELECT DISTINCT source FROM custodian_consumer_offsets WHERE group_id = $1 AND source <> $2',
        [group, ''],
      );
      expect(rows.map((r) => r.source).sort()).toEqual(['db1', 'db2']);
    }, 300_000);

    it('after a tenant moves (its events copied with new positions) and is written to again, the group still equals the databases, no event twice or missing', async () => {
      const moved = await a.admin('POST', '/v1/tenants/k1/move', { to: 'db2' });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      await write('k1', 'r2', 5);
      await write('k3', 'r2', 4);
      await groupEqualsDatabases();
      // And back: into the database it left, with positions again new there.
      expect((await a.admin('POST', '/v1/tenants/k1/move', { to: 'db1' })).status).toBe(200);
      await write('k1', 'r3', 4);
      await groupEqualsDatabases();
    }, 300_000);
  });
