import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { busProjections } from '../../../projections/all.ts';
import { freshDatabase } from '../../support/database.ts';
import { dumpReadModels } from '../../support/dump.ts';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * SPEC §10 on a real broker: the relay publishes the log to a topic (key = stream, the
 * store's own ciphertext), and read models are built by a consumer group in other processes
 * with exactly-once effects, through a worker killed mid-stream and a relay that publishes
 * everything again.
 */
const brokers = inject('kafkaBrokers');
const root = path.resolve(import.meta.dirname, '../../..');
const BODY_MARKER = `kafka-plaintext-${Date.now()}-5e1f`;
const PARTITIONS = 4;

/** A retriable broker error (a partition whose leader is still being elected, stale metadata) means "not yet". */
const settled = async (check: () => Promise<boolean>) => {
  try {
    return await check();
  } catch (error) {
    if ((error as { retriable?: unknown }).retriable === true) return false;
    throw error;
  }
};

const until = async (what: string, check: () => Promise<boolean>, ms = 90_000) => {
  const deadline = Date.now() + ms;
  while (!(await settled(check))) {
    if (Date.now() > deadline) throw new Error(`not reached in ${ms / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

if (!brokers) describe('kafka fan-out', () => it.skip(`skipped: ${inject('kafkaSource')}`, () => undefined));
else
  describe(`kafka fan-out (broker ${brokers}, ${inject('kafkaSource')})`, () => {
    const topic = `custodian-test-${randomUUID()}`;
    const kafka = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    let svc: TestService;
    // A second instance on the same database runs a relay on the same topic: they take turns.
    let twin: TestService;
    let target: Awaited<ReturnType<typeof freshDatabase>>;
    let targetPool: pg.Pool;
    const workers: ChildProcess[] = [];

    /** Some work on the service: jobs, calls, record versions (with a plaintext marker), reads. */
    const workload = async (round: string, jobs: number, puts: number) => {
      await Promise.all(
        Array.from({ length: jobs }, async (_, j) => {
          const c = await caller(svc, 'acme', { input: `round ${round}` });
          for (let i = 0; i < puts; i++) {
            const key = `${round}-${j}-${i % 5}`;
            const put = await c.rec({ op: 'put', scope: 'tenant', record_key: key, body: { text: `${BODY_MARKER} ${key} ${i}` }, expect: Math.floor(i / 5) });
            expect(put.body).toMatchObject({ key, version: Math.floor(i / 5) + 1 });
          }
          expect((await c.rec({ op: 'list', list: { scopes: ['tenant'] } })).status).toBe(200);
        }),
      );
    };

    const head = async () => {
      const position = await svc.lastPosition();
      await until('the service sees its own head', () => svc.runner.waitFor(position, 1000));
      return position;
    };

    const relayed = async (position: number) =>
      until(`the relay reaches position ${position}`, async () => {
        const { rows } = await svc.pool.query<{ position: string }>('SELECT position FROM custodian_relay WHERE target = $1', [`kafka:${topic}`]);
        return Number(rows[0]?.position ?? 0) >= position;
      });

    /** The group has applied every message on the topic: each partition's row sits at its last offset. */
    const consumedAll = async (group: string) => {
      const ends = await admin.fetchTopicOffsets(topic);
      const { rows } = await targetPool.query<{ partition: number; kafka_offset: string }>(
        'SELECT partition, kafka_offset FROM custodian_consumer_offsets WHERE group_id = $1 AND topic = $2',
        [group, topic],
      );
      return ends.every((e) => Number(e.high) === 0 || rows.some((r) => r.partition === e.partition && Number(r.kafka_offset) === Number(e.high) - 1));
    };

    const applied = async (group: string) =>
      Number(
        (await targetPool.query<{ n: string }>('SELECT coalesce(sum(applied), 0) AS n FROM custodian_consumer_offsets WHERE group_id = $1', [group])).rows[0]!
          .n,
      );

    const startWorker = (group: string) => {
      const child = spawn(process.execPath, [path.join(root, 'bin/custodian.js'), 'kafka', 'consume', '--group', group], {
        env: { ...process.env, DATABASE_URL: target.url, KAFKA_BROKERS: brokers, KAFKA_TOPIC: topic, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      workers.push(child);
      return child;
    };

    const exited = (child: ChildProcess) =>
      new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

    beforeAll(async () => {
      await admin.connect();
      svc = await startTestService({ blocking: true, kafka: { brokers: brokers.split(','), topic, partitions: PARTITIONS } });
      twin = await startTestService({ shareWith: svc, kafka: { brokers: brokers.split(','), topic, partitions: PARTITIONS } });
      await svc.admin('POST', '/v1/tenants', { id: 'acme' });
      await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
      target = await freshDatabase({ blocking: true });
      targetPool = createPool(target.url, 2);
      // The schema is there (freshDatabase applies it), so the test can watch the group's progress
      // (and lock a row) before the first worker is up.
    });

    afterAll(async () => {
      for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGTERM');
      await Promise.all(workers.map(exited));
      await targetPool?.end();
      await twin?.stop();
      await svc?.stop();
      await target?.drop();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    });

    it('publishes every committed event once (two relays on the topic), keyed by stream in stream order, as the same ciphertext the store holds', async () => {
      await workload('a', 4, 6);
      const position = await head();
      await relayed(position);
      const health = await svc.admin('GET', '/healthz');
      expect(health.body.relay).toEqual({ topic, position: expect.any(Number) });
      expect(health.body.relay.position).toBeGreaterThan(0);
      const created = await admin.describeConfigs({ resources: [{ type: 2, name: topic, configNames: ['retention.ms'] }], includeSynonyms: false });
      // Kept for good, so a new consumer group can build from the first event.
      expect(created.resources[0]!.configEntries[0]).toMatchObject({ configName: 'retention.ms', configValue: '-1' });

      const stored = (
        await svc.pool.query<{ position: string; stream: string; data: unknown }>('SELECT position, stream, data FROM custodian_events ORDER BY position')
      ).rows;
      const seen: { partition: number; key: string; raw: string; headers: Record<string, string> }[] = [];
      const consumer = kafka.consumer({ groupId: `inspect-${randomUUID()}` });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          seen.push({
            partition,
            key: message.key!.toString(),
            raw: message.value!.toString(),
            headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])),
          });
        },
      });
      await until('the inspector reads the whole topic', async () => seen.length >= stored.length);
      await consumer.disconnect();

      const events = seen.map((m) => ({ ...m, event: JSON.parse(m.raw) }));
      // Every event once, nothing extra.
      expect(events.map((m) => m.event.position).sort((a, b) => a - b)).toEqual(stored.map((r) => Number(r.position)));
      const byPosition = new Map(stored.map((r) => [Number(r.position), r]));
      const partitionOf = new Map<string, number>();
      const lastRevision = new Map<string, number>();
      for (const m of events) {
        const row = byPosition.get(m.event.position)!;
        expect(m.key).toBe(row.stream);
        expect(m.event.stream).toBe(row.stream);
        expect(m.headers.position).toBe(String(m.event.position));
        // The data is the stored data, byte for byte in JSON: sealed bodies stay sealed.
        expect(m.event.data).toEqual(row.data);
        // One partition per stream, and each stream in revision order within it.
        expect(partitionOf.get(m.key) ?? m.partition).toBe(m.partition);
        partitionOf.set(m.key, m.partition);
        expect(m.event.revision).toBe((lastRevision.get(m.key) ?? -1) + 1);
        lastRevision.set(m.key, m.event.revision);
      }
      const bodies = events.filter((m) => m.event.type === 'RecordVersionWritten');
      expect(bodies.length).toBe(24);
      for (const m of bodies) expect(m.raw).toContain(JSON.stringify(m.event.data.body));
      // The control: the marker is what the bodies say when opened, and it is on no message.
      expect(
        (await (await caller(svc, 'acme', { input: 'round a' })).rec({ op: 'get', scope: 'tenant', record_key: 'a-0-0' })).body.record.body.text,
      ).toContain(BODY_MARKER);
      expect(seen.filter((m) => m.raw.includes(BODY_MARKER))).toEqual([]);
      expect(new Set(partitionOf.values()).size).toBeGreaterThan(1);
    });

    it('a consumer group builds the same read models; a worker killed mid-stream and restarted applies nothing twice and misses nothing', async () => {
      const group = `readers-${randomUUID()}`;
      await workload('b', 6, 30);
      const first = await head();
      await relayed(first);

      // A alone first, so the worker killed is the one mid-stream. To kill it inside a
      // transaction, deterministically: the test holds a row lock on the list-index row of
      // record a-0-0, so the partition carrying that record's stream stalls in a transaction
      // that has already applied part of its chunk, while the other partitions go on.
      await targetPool.query(
        `INSERT INTO rm_records (tenant, plugin, scope, key, version, kind, state, closed, ends_at, purpose, subject_kind, created_ms)
         VALUES ('acme', 'notes', 'tenant', 'a-0-0', 0, '', '', false, 0, '', '', 0)`,
      );
      const blocker = new pg.Client({ connectionString: target.url });
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM rm_records WHERE tenant = 'acme' AND key = 'a-0-0' FOR UPDATE`);
      const a = startWorker(group);
      const stalled = async () =>
        Number(
          (await targetPool.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))
            .rows[0]!.n,
        ) > 0;
      let atKill = 0;
      await until(
        'worker A has applied some partitions and stalls inside a transaction on another',
        async () => (atKill = await applied(group)) > 0 && (await stalled()),
        120_000,
      );
      a.kill('SIGKILL');
      await exited(a);
      await blocker.query('ROLLBACK');
      await blocker.end();
      const total = Number((await svc.pool.query<{ n: string }>('SELECT count(*) AS n FROM custodian_events')).rows[0]!.n);
      // Mid-stream: something was applied and much was not.
      expect(atKill).toBeGreaterThan(0);
      expect(atKill).toBeLessThan(total);

      // Work goes on while A is down; B joins, then A comes back.
      const b = startWorker(group);
      await workload('c', 3, 10);
      const again = startWorker(group);
      const second = await head();
      await relayed(second);
      await until('the group has consumed the whole topic', () => consumedAll(group), 120_000);

      const all = Number((await svc.pool.query<{ n: string }>('SELECT count(*) AS n FROM custodian_events')).rows[0]!.n);
      // Each event applied exactly once across the kill: the counter sums every applied event.
      expect(await applied(group)).toBe(all);
      const models = busProjections();
      expect(await dumpReadModels(targetPool, models)).toEqual(await dumpReadModels(svc.pool, models));
      // The non-idempotent counter in rm_jobs would show a CallMinted applied twice.
      const minted = (await targetPool.query<{ n: string }>('SELECT sum(calls_minted) AS n FROM rm_jobs')).rows[0]!.n;
      expect(Number(minted)).toBe(
        Number((await svc.pool.query<{ n: string }>(`SELECT count(*) AS n FROM custodian_events WHERE type = 'CallMinted'`)).rows[0]!.n),
      );
      expect([b.exitCode, again.exitCode]).toEqual([null, null]);
      process.stderr.write(
        `kafka consumer group: worker A killed inside a transaction after ${atKill} of ${total} events; ${all} events on the topic, each applied exactly once by the group\n`,
      );

      // A relay that crashed after publishing publishes again: the group drops every repeat.
      await svc.pool.query('UPDATE custodian_relay SET position = 0 WHERE target = $1', [`kafka:${topic}`]);
      const republished = await svc.relay!.drain();
      expect(republished).toBe(second);
      await until('the group has consumed the republished topic', () => consumedAll(group), 120_000);
      expect(await applied(group)).toBe(all);
      expect(await dumpReadModels(targetPool, models)).toEqual(await dumpReadModels(svc.pool, models));
    });

    it('custodian kafka relay publishes the log to a topic of its own from another process, and stops cleanly on SIGTERM', async () => {
      const own = `${topic}-cli`;
      const relay = spawn(process.execPath, [path.join(root, 'bin/custodian.js'), 'kafka', 'relay', '--topic', own], {
        env: { ...process.env, DATABASE_URL: svc.databaseUrl, KAFKA_BROKERS: brokers, KAFKA_PARTITIONS: '2', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      workers.push(relay);
      const events = Number((await svc.pool.query<{ n: string }>('SELECT count(*) AS n FROM custodian_events')).rows[0]!.n);
      let ends: Awaited<ReturnType<typeof admin.fetchTopicOffsets>> = [];
      await until(`topic ${own} holds all ${events} events`, async () => {
        const topics = await admin.listTopics();
        if (!topics.includes(own)) return false;
        ends = await admin.fetchTopicOffsets(own);
        return ends.reduce((sum, e) => sum + Number(e.high), 0) >= events;
      });
      expect(ends).toHaveLength(2);
      expect(ends.reduce((sum, e) => sum + Number(e.high), 0)).toBe(events);
      relay.kill('SIGTERM');
      await exited(relay);
      expect(relay.exitCode).toBe(0);
      await admin.deleteTopics({ topics: [own] });
    });
  });
