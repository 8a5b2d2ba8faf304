import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import type { AgentRecordPutData } from '../../../domain/collections/events.ts';
import { createRecords, type Records } from '../../../sdk/records.ts';
import { pgDump, readTopic } from '../../support/at-rest.ts';
import { scanDataDirectory } from '../../support/scan.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * SPEC §12 forgetting, at rest: once a person is forgotten, none of their records' values is
 * in the PostgreSQL data directory, a `pg_dump` or the Kafka topic the relay publishes to, and
 * the sealed copies left in the log and on the topic no longer open. A record that names them
 * only in an undeclared field is kept and still reads.
 */
const brokers = inject('kafkaBrokers');
const topic = `custodian-agent-at-rest-${randomUUID()}`;
const tag = `${Date.now()}-${randomUUID().slice(0, 8)}`;
/** In every value of the person's records, never anywhere else. */
const FORGOTTEN = `forgotten-value-${tag}`;
const PHONE = `+1555${String(randomInt(1_000_000, 9_999_999))}`;
/** A record id, which the log keeps in clear: proof that each scan sees what is stored. */
const CONTROL = `kept-id-${tag}`;

let svc: TestService;
let records: Records;
let forgottenIds: string[];
beforeAll(async () => {
  svc = await startTestService(brokers ? { kafka: { brokers: brokers.split(','), topic, partitions: 2 } } : {});
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  const { key } = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'concierge' })).body as { key: string };
  records = createRecords({
    url: svc.url,
    key,
    collections: { notes: { people: ['about'], fields: ['kind'] }, questions: { people: ['buyer', 'seller'], fields: ['status'] } },
  });
  await records.put('notes', 'n1', { about: `phone:${PHONE}`, kind: 'note', text: `${FORGOTTEN} likes the blue bike` });
  await records.put('notes', 'n2', { about: PHONE, kind: 'note', text: `${FORGOTTEN} calls after six`, detail: { nested: `${FORGOTTEN} nested` } });
  await records.put('questions', 'q1', { buyer: `phone:${PHONE}`, seller: 'shop-7', status: 'waiting', question: `${FORGOTTEN} lights?` });
  await records.put('notes', CONTROL, {
    about: 'someone-else',
    kind: 'note',
    mentions: `phone:${PHONE}`,
    text: 'kept: names the person only where no index looks',
  });
  forgottenIds = ['n1', 'n2', 'q1'];
  expect(await records.forgetPerson(`phone:${PHONE}`)).toBe(3);
  await svc.pool.query('CHECKPOINT');
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  if (brokers) {
    const admin = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
});

const hasForgotten = (text: string | Buffer) => text.includes(FORGOTTEN) || text.includes(PHONE.slice(1));

describe('after forget {person}, at rest', () => {
  it('get, query and export show none of their records; the record naming them only in an undeclared field is kept and reads', async () => {
    for (const id of ['n1', 'n2']) expect(await records.get('notes', id)).toBeNull();
    expect(await records.get('questions', 'q1')).toBeNull();
    expect((await records.query('notes')).map((e) => e.id)).toEqual([CONTROL]);
    expect(await records.query('questions')).toEqual([]);
    const exported = [];
    for await (const e of records.export()) exported.push(e);
    expect(exported.map((e) => e.id)).toEqual([CONTROL]);
    expect(await records.get('notes', CONTROL)).toEqual({
      about: 'someone-else',
      kind: 'note',
      mentions: `phone:${PHONE}`,
      text: 'kept: names the person only where no index looks',
    });
  });

  it('the sealed values the log still holds no longer open with the service keys; the kept one does', async () => {
    const keys = await postgresKeystore(svc.pool, svc.masterKey);
    const puts = (await svc.store.readStream('agent:acme:concierge')).filter((e) => e.type === 'AgentRecordPut').map((e) => e.data as AgentRecordPutData);
    const open = (d: AgentRecordPutData) =>
      keys.open(
        { tenant: 'acme', plugin: 'agent:concierge', scope: d.collection, key: `${d.id}\n${d.created_ms}`, version: d.seq, data_subject: null },
        'body',
        d.value,
      );
    expect(puts.map((d) => d.id).sort()).toEqual([...forgottenIds, CONTROL].sort());
    for (const d of puts) {
      if (forgottenIds.includes(d.id)) expect(await open(d), d.id).toBeNull();
      else expect(await open(d)).toContain('kept: names the person');
    }
  });

  it('the PostgreSQL data directory (after a CHECKPOINT) holds none of their values', async (ctx) => {
    const dir = inject('databaseDataDir');
    if (!dir) ctx.skip(true, `the data directory of a ${inject('databaseSource')} server is not on this machine`);
    let control = 0;
    const scanned = scanDataDirectory(dir, (bytes, file) => {
      if (bytes.includes(CONTROL)) control++;
      expect(hasForgotten(bytes), file).toBe(false);
    });
    expect(scanned).toBeGreaterThan(1024 * 1024);
    expect(control).toBeGreaterThan(0);
  });

  it('a pg_dump of the database holds none of their values', async (ctx) => {
    const dumped = pgDump(svc.databaseUrl);
    if ('skipped' in dumped) return ctx.skip(true, dumped.skipped);
    expect(dumped.dump).toContain('AgentPersonForgotten');
    expect(dumped.dump).toContain(CONTROL);
    expect(hasForgotten(dumped.dump)).toBe(false);
  });

  it('the Kafka topic holds none of their values, and their sealed copies there no longer open', async (ctx) => {
    if (!brokers) return ctx.skip(true, `no Kafka broker: ${inject('kafkaSource')} (set KAFKA_BROKERS)`);
    const head = await svc.lastPosition();
    await expect
      .poll(
        async () =>
          Number(
            (await svc.pool.query<{ position: string }>('SELECT position FROM custodian_relay WHERE target = $1', [`kafka:${topic}`])).rows[0]?.position ?? 0,
          ),
        { timeout: 90_000, interval: 200 },
      )
      .toBeGreaterThanOrEqual(head);
    const stored = Number((await svc.pool.query<{ n: string }>('SELECT count(*) AS n FROM custodian_events WHERE position <= $1', [head])).rows[0]!.n);
    const messages = await readTopic(brokers, topic, stored);
    expect(messages.some((m) => m.includes(CONTROL))).toBe(true);
    expect(messages.filter(hasForgotten)).toEqual([]);
    const keys = await postgresKeystore(svc.pool, svc.masterKey);
    const puts = messages.map((m) => JSON.parse(m) as { type: string; data: AgentRecordPutData }).filter((m) => m.type === 'AgentRecordPut');
    expect(puts).toHaveLength(4);
    for (const { data: d } of puts) {
      const opened = await keys.open(
        { tenant: 'acme', plugin: 'agent:concierge', scope: d.collection, key: `${d.id}\n${d.created_ms}`, version: d.seq, data_subject: null },
        'body',
        d.value,
      );
      expect(opened === null, d.id).toBe(forgottenIds.includes(d.id));
    }
  });
});
