import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { logLevel, Kafka, Partitioners } from 'kafkajs';
import type pg from 'pg';
import { startService } from '../adapters/service.ts';
import { newAuditKey } from '../adapters/keys/audit-key.ts';
import { createPool } from '../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../adapters/postgres/read-model-store.ts';
import { postgresEventStore } from '../adapters/eventstore/postgres.ts';
import { encodeEvent } from '../adapters/bus/kafka/codec.ts';
import { ensureTopic, kafkaClient } from '../adapters/bus/kafka/client.ts';
import { kafkaPublisher } from '../adapters/bus/kafka/publisher.ts';
import { createRelay } from '../adapters/bus/relay.ts';
import { applySchema } from '../adapters/postgres/schema.ts';
import { startProjectionConsumer } from '../adapters/bus/kafka/projection-consumer.ts';
import { busProjections } from '../projections/all.ts';
import { runBatch } from '../projections/runner.ts';
import { fmt, row } from './harness.ts';

const run = promisify(execFile);
const ADMIN = 'bench-admin-key';
const PARTITIONS = 6;

/** KAFKA_BROKERS, else a local broker from scripts/kafka-broker.sh; null (and why) when neither. */
const broker = async (): Promise<{ brokers: string; stop: () => Promise<void> } | string> => {
  if (process.env.KAFKA_BROKERS) return { brokers: process.env.KAFKA_BROKERS, stop: async () => undefined };
  const dir = mkdtempSync(path.join(tmpdir(), 'custodian-bench-kafka-'));
  const script = path.resolve(import.meta.dirname, '../scripts/kafka-broker.sh');
  try {
    const { stdout } = await run(script, ['start', dir], { timeout: 600_000 });
    return {
      brokers: stdout.trim().split('\n').at(-1)!,
      stop: async () => {
        await run(script, ['stop', dir]);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `no broker (KAFKA_BROKERS unset and the local one did not start: ${String((error as Error).message).split('\n')[0]})`;
  }
};

const database = async (pool: pg.Pool, base: string, name: string) => {
  await pool.query(`DROP DATABASE IF EXISTS ${name}`);
  await pool.query(`CREATE DATABASE ${name}`);
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
};

const rate = (events: number, started: number) => events / ((performance.now() - started) / 1000);

/**
 * Kafka fan-out against baselines measured in the same run: the relay against a bare kafkajs
 * producer sending the same messages; the consumer group against the in-process projection
 * runner building the same read models from the log.
 */
export const benchKafka = async (pool: pg.Pool, url: string, puts: number) => {
  console.log('\nKafka fan-out (relay vs bare producer of the same messages; consumer group vs in-process runner, same models)');
  const b = await broker();
  if (typeof b === 'string') {
    console.log(`  skipped: ${b}`);
    return;
  }
  const pools: pg.Pool[] = [];
  const kafka = new Kafka({ brokers: b.brokers.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const topics: string[] = [];
  try {
    // Domain events made the way users make them: puts over HTTP on a service of its own.
    const sourceUrl = await database(pool, url, 'bench_kafka_source');
    const svc = await startService({ databaseUrl: sourceUrl, adminKey: ADMIN, masterKey: randomBytes(32), auditKey: newAuditKey(), port: 0 });
    const post = async (p: string, body: unknown, bearer = ADMIN) => {
      const res = await fetch(`${svc.url}${p}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${p}: ${await res.text()}`);
      return (await res.json()) as { _meta: { 'oz0/records': { ticket: string } } };
    };
    await post('/v1/tenants', { id: 'bench', settings: { caps: { records: 20_000, bytes: 1 << 30 } } });
    await post('/v1/tenants/bench/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, c) => {
        await post('/v1/tenants/bench/jobs', { id: `job-${c}`, agent: 'scribe', plugin: 'notes', subject: 'bench', input: 'bench', timeout_ms: 86_400_000 });
        let ticket = '';
        for (let i = next++, used = 64; i < puts; i = next++, used++) {
          if (used >= 64) {
            ticket = (await post(`/v1/tenants/bench/jobs/job-${c}/calls`, { function: 'save' }))._meta['oz0/records'].ticket;
            used = 0;
          }
          await post('/v1/records', { op: 'put', scope: `project:p${i % 50}`, record_key: `k${i}`, body: { note: 'x'.repeat(200), n: i }, expect: 0 }, ticket);
        }
      }),
    );
    await svc.close();

    const sourcePool = createPool(sourceUrl, 8);
    pools.push(sourcePool);
    const store = await postgresEventStore(sourcePool);
    const events = await store.readAll(0, { limit: 1_000_000 });
    const n = events.length;
    console.log(`  ${n} events from ${puts} puts; topics of ${PARTITIONS} partitions; broker ${b.brokers}`);
    console.log(row(['what', 'baseline/s', 'custodian/s', 'ratio']));

    // 1. Publishing: a bare producer of the same encoded messages vs the relay (which also reads the log and moves its checkpoint).
    const settings = (topic: string) => ({ brokers: b.brokers.split(','), topic, partitions: PARTITIONS });
    const rawTopic = `bench-raw-${randomUUID()}`;
    const relayTopic = `bench-relay-${randomUUID()}`;
    topics.push(rawTopic, relayTopic);
    await ensureTopic(kafka, settings(rawTopic));
    await ensureTopic(kafka, settings(relayTopic));
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, maxInFlightRequests: 1 });
    await producer.connect();
    // Warm both paths alike: metadata and connections before the clock starts.
    await producer.send({ topic: rawTopic, acks: -1, messages: [encodeEvent(events[0]!)] });
    let t = performance.now();
    for (let i = 0; i < n; i += 500) await producer.send({ topic: rawTopic, acks: -1, messages: events.slice(i, i + 500).map((e) => encodeEvent(e)) });
    const rawPublish = rate(n, t);
    await producer.disconnect();
    const publisher = await kafkaPublisher(kafkaClient(settings(relayTopic)), relayTopic);
    const sourceDb = postgresReadModelStore(sourcePool);
    const relay = createRelay(store, sourceDb, publisher, { target: `kafka:${relayTopic}` });
    t = performance.now();
    await relay.drain();
    const relayPublish = rate(n, t);
    await publisher.close();
    console.log(row(['publish', fmt(rawPublish, 0), fmt(relayPublish, 0), fmt(relayPublish / rawPublish, 3)]));

    // 2. Building the stream-ordered models: the in-process runner from the log vs one consumer from the topic.
    const models = busProjections();
    const runnerPool = createPool(await database(pool, url, 'bench_kafka_runner'), 4);
    const consumerPool = createPool(await database(pool, url, 'bench_kafka_consumer'), 4);
    pools.push(runnerPool, consumerPool);
    const runnerDb = postgresReadModelStore(runnerPool);
    await applySchema(runnerPool);
    await applySchema(consumerPool);
    t = performance.now();
    for (;;) if ((await runBatch(store, runnerDb, models, 500)).applied < 500) break;
    const runnerRate = rate(n, t);
    const consumerDb = postgresReadModelStore(consumerPool);
    t = performance.now();
    const worker = await startProjectionConsumer(kafkaClient(settings(relayTopic)), consumerDb, models, {
      groupId: `bench-${randomUUID()}`,
      topic: relayTopic,
    });
    const ends = await admin.fetchTopicOffsets(relayTopic);
    let firstChunk: { at: number; applied: number } | null = null;
    for (;;) {
      const { rows } = await consumerPool.query<{ partition: number; kafka_offset: string; applied: string }>(
        'SELECT partition, kafka_offset, applied FROM custodian_consumer_offsets',
      );
      if (!firstChunk && rows.length > 0) firstChunk = { at: performance.now(), applied: rows.reduce((sum, r) => sum + Number(r.applied), 0) };
      if (ends.every((e) => Number(e.high) === 0 || rows.some((r) => r.partition === e.partition && Number(r.kafka_offset) === Number(e.high) - 1))) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const consumerRate = rate(n, t);
    const steadyRate = firstChunk ? rate(n - firstChunk.applied, firstChunk.at) : consumerRate;
    await worker.stop();
    console.log(row(['build models', fmt(runnerRate, 0), fmt(consumerRate, 0), fmt(consumerRate / runnerRate, 3)]));
    console.log(row(['after join', fmt(runnerRate, 0), fmt(steadyRate, 0), fmt(steadyRate / runnerRate, 3)]));
    console.log('  ("build models" counts from connecting, so it includes joining the group; "after join" from the first applied chunk)');
    await store.close();
  } finally {
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await Promise.all(pools.map((p) => p.end()));
    await b.stop();
  }
};
