import { cliLogger } from '../logging.ts';
import { busProjections } from '../../projections/all.ts';
import { kafkaClient, kafkaSettingsFromEnv, type KafkaSettings } from '../bus/kafka/client.ts';
import { startKafkaRelay } from '../bus/kafka/relay.ts';
import { startProjectionConsumer } from '../bus/kafka/projection-consumer.ts';
import { createPool } from '../postgres/pool.ts';
import { applySchema } from '../postgres/schema.ts';
import { postgresReadModelStore } from '../postgres/read-model-store.ts';
import { dataDirOf, openDatabase, openEventStore } from './database.ts';
import { stopOnSignal } from './signals.ts';

/** The settings, or null after saying in one line what is wrong (exit code 2). */
const settings = (topic?: string): KafkaSettings | null => {
  let problem = 'KAFKA_BROKERS is not set (e.g. KAFKA_BROKERS=127.0.0.1:9092)';
  let s: KafkaSettings | null = null;
  try {
    s = kafkaSettingsFromEnv();
  } catch (error) {
    problem = (error as Error).message;
  }
  if (s) return topic ? { ...s, topic } : s;
  process.stderr.write(`custodian: ${problem}\n`);
  process.exitCode = 2;
  return null;
};

/** `custodian kafka relay`: publish committed events from the log to the topic. */
export const relay = async (o: { topic?: string; dataDir?: string }) => {
  const logger = cliLogger();
  const s = settings(o.topic);
  if (!s) return;
  const database = await openDatabase(dataDirOf(o.dataDir));
  const pool = createPool(database.url, 4);
  await applySchema(pool);
  const store = await openEventStore(pool);
  const relay = await startKafkaRelay(store, pool, s, logger);
  logger.info({ topic: s.topic, event_store: store.name }, 'relay running');
  stopOnSignal(logger, async () => {
    await relay.stop();
    await store.close();
    await pool.end();
    await database.release();
  });
};

/** `custodian kafka consume`: one member of a consumer group building read models. */
export const consume = async (o: { group: string; topic?: string; projections?: string; dataDir?: string }) => {
  const logger = cliLogger();
  const s = settings(o.topic);
  if (!s) return;
  const available = busProjections();
  const wanted = o.projections ? o.projections.split(',').map((n) => n.trim()) : available.map((p) => p.name);
  const unknown = wanted.filter((n) => !available.some((p) => p.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`custodian: a consumer group cannot build ${unknown.join(', ')}; it can build ${available.map((p) => p.name).join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  const database = await openDatabase(dataDirOf(o.dataDir));
  const pool = createPool(database.url, 4);
  await applySchema(pool);
  const worker = await startProjectionConsumer(
    kafkaClient(s, logger),
    postgresReadModelStore(pool),
    available.filter((p) => wanted.includes(p.name)),
    {
      groupId: o.group,
      topic: s.topic,
      onChunk: (partition, offset, applied) => logger.debug({ partition, offset, applied }, 'applied'),
      onError: (error) => logger.error({ err: error }, 'chunk failed; kafkajs will retry it'),
    },
  );
  logger.info({ group: o.group, topic: s.topic, projections: wanted }, 'consumer running');
  stopOnSignal(logger, async () => {
    await worker.stop();
    await pool.end();
    await database.release();
  });
};
