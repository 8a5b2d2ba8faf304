import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';

export interface KafkaSettings {
  /** Bootstrap addresses, e.g. ["127.0.0.1:9092"] (KAFKA_BROKERS, comma-separated). */
  readonly brokers: readonly string[];
  /** The topic committed events go to (KAFKA_TOPIC, default custodian.events). */
  readonly topic: string;
  /** Partitions when the relay creates the topic (KAFKA_PARTITIONS, default 6). */
  readonly partitions: number;
  readonly clientId?: string;
}

export const kafkaSettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): KafkaSettings | null => {
  const brokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) return null;
  const partitions = Number(env.KAFKA_PARTITIONS ?? 6);
  if (!Number.isInteger(partitions) || partitions < 1) throw new Error(`KAFKA_PARTITIONS must be a positive integer, not ${env.KAFKA_PARTITIONS}`);
  return { brokers, topic: env.KAFKA_TOPIC ?? 'custodian.events', partitions };
};

const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** A kafkajs client whose logs go to pino (or nowhere). */
export const kafkaClient = (s: KafkaSettings, logger?: Logger) =>
  new Kafka({
    clientId: s.clientId ?? 'custodian',
    brokers: [...s.brokers],
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...rest } = entry.log;
      // A group rebalancing is how members come and go, not a failure.
      const routine = /rebalanc/i.test(`${message} ${String(rest.error ?? '')}`);
      logger?.[routine ? 'info' : (levels[entry.level] ?? 'info')]({ kafka: entry.namespace, ...rest }, message);
    },
  });

/**
 * Creates the topic if it is missing; an existing one is left as it is. It keeps every
 * message (no time or size retention), so a new consumer group can build its models from
 * the first event; an erasure reaches these copies as it reaches the log's, by the shredded key.
 */
export const ensureTopic = async (kafka: Kafka, s: KafkaSettings) => {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = await admin.listTopics();
    if (!topics.includes(s.topic))
      await admin.createTopics({
        topics: [
          {
            topic: s.topic,
            numPartitions: s.partitions,
            configEntries: [
              { name: 'retention.ms', value: '-1' },
              { name: 'retention.bytes', value: '-1' },
            ],
          },
        ],
        waitForLeaders: true,
      });
  } finally {
    await admin.disconnect();
  }
};
