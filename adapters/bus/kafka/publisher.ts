import { Partitioners, type Kafka } from 'kafkajs';
import type { Publisher } from '../../../domain/ports/publisher.ts';
import { encodeEvent } from './codec.ts';

/**
 * Publishes to one topic with acks from every in-sync replica. One producer, one request in
 * flight: a retried request can then never overtake the one before it, so each partition
 * (and so each stream) keeps the order it was sent in. With several tenant databases each
 * message names its `source` database (a header): its position is of that database's log.
 */
export const kafkaPublisher = async (kafka: Kafka, topic: string, source?: string): Promise<Publisher> => {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  return {
    name: 'kafka',
    async publish(events) {
      if (events.length === 0) return;
      await producer.send({ topic, acks: -1, messages: events.map((e) => encodeEvent(e, source)) });
    },
    close: () => producer.disconnect(),
  };
};
