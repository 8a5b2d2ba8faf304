import type pg from 'pg';
import type { Logger } from 'pino';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import { postgresReadModelStore } from '../../postgres/read-model-store.ts';
import { createRelay, type Relay } from '../relay.ts';
import { ensureTopic, kafkaClient, type KafkaSettings } from './client.ts';
import { kafkaPublisher } from './publisher.ts';

/**
 * The relay to a Kafka topic, its checkpoint in PostgreSQL on `pool`; stopping it closes the
 * producer. `source`: the tenant database's name (CUSTODIAN_DATABASES), carried by each message.
 */
export const startKafkaRelay = async (store: EventStore, pool: pg.Pool, settings: KafkaSettings, logger?: Logger, source?: string): Promise<Relay> => {
  const kafka = kafkaClient(settings, logger);
  await ensureTopic(kafka, settings);
  const publisher = await kafkaPublisher(kafka, settings.topic, source);
  const db = postgresReadModelStore(pool);
  const relay = createRelay(store, db, publisher, {
    target: `kafka:${settings.topic}`,
    onBatch: (position, published) => logger?.debug({ position, published, topic: settings.topic }, 'published'),
    onError: (error) => logger?.warn({ err: error, topic: settings.topic }, 'relay could not publish; retrying'),
  });
  relay.start();
  return {
    ...relay,
    async stop() {
      await relay.stop();
      await publisher.close();
    },
  };
};
