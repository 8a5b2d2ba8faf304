import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { ReadModelStore, Sql } from '../../../domain/ports/read-model.ts';
import type { Projection } from '../../../projections/projection.ts';
import { applyEvent } from '../../../projections/runner.ts';
import { decodeEvent } from './codec.ts';

export interface ProjectionConsumerOptions {
  readonly groupId: string;
  readonly topic: string;
  /** Messages applied per transaction (default 200). */
  readonly chunk?: number;
  /** Partitions applied at once, each in its own transaction (default 3; keep below the pool size). */
  readonly concurrency?: number;
  readonly sessionTimeoutMs?: number;
  readonly onChunk?: (partition: number, offset: string, applied: number) => void;
  readonly onError?: (error: unknown) => void;
}

export interface ProjectionConsumer {
  readonly consumer: Consumer;
  stop(): Promise<void>;
}

/**
 * Builds stream-ordered read models from the topic, as one member of a consumer group.
 *
 * Exactly-once effects: each chunk of a partition's messages is applied in one PostgreSQL
 * transaction that also moves that partition's row in `custodian_consumer_offsets`, so a
 * crash keeps both or neither. The row, not Kafka, is the truth: Kafka's committed offset is
 * only moved after the transaction commits, so it can lag the row but never pass it, and a
 * message at or below the row's offset is dropped. A message whose event position is at or
 * below the highest already applied in its partition is dropped too: that is the relay
 * publishing a batch again after a crash (a stream always maps to one partition, so a
 * partition's positions only grow).
 */
export const startProjectionConsumer = async (
  kafka: Kafka,
  db: ReadModelStore,
  projections: readonly Projection[],
  o: ProjectionConsumerOptions,
): Promise<ProjectionConsumer> => {
  const global = projections.filter((p) => p.order !== 'stream');
  if (global.length > 0)
    throw new Error(`projections ${global.map((p) => p.name).join(', ')} need the log's global order; a consumer group only keeps each stream's`);
  const chunkSize = o.chunk ?? 200;

  const applyChunk = (partition: number, messages: readonly KafkaMessage[]) =>
    db.transaction(async (sql: Sql) => {
      await sql.query(
        `INSERT INTO custodian_consumer_offsets (group_id, topic, partition, kafka_offset, position) VALUES ($1, $2, $3, -1, 0)
         ON CONFLICT DO NOTHING`,
        [o.groupId, o.topic, partition],
      );
      const { rows } = await sql.query<{ kafka_offset: string; position: string }>(
        'SELECT kafka_offset, position FROM custodian_consumer_offsets WHERE group_id = $1 AND topic = $2 AND partition = $3 FOR UPDATE',
        [o.groupId, o.topic, partition],
      );
      let offset = BigInt(rows[0]!.kafka_offset);
      let position = Number(rows[0]!.position);
      let applied = 0;
      for (const m of messages) {
        if (BigInt(m.offset) <= offset) continue;
        const decoded = decodeEvent(m.key, m.value);
        // A message that is not an event of ours stops this partition here (and is reported)
        // rather than being stepped over: the read model must not silently miss an event.
        if (!decoded.ok) throw new Error(`${o.topic}[${partition}] offset ${m.offset}: ${decoded.error}`);
        if (decoded.event.position > position) {
          for (const p of projections) await applyEvent(p, sql, decoded.event);
          position = decoded.event.position;
          applied += 1;
        }
        offset = BigInt(m.offset);
      }
      await sql.query(
        `UPDATE custodian_consumer_offsets SET kafka_offset = $4, position = $5, applied = applied + $6
         WHERE group_id = $1 AND topic = $2 AND partition = $3`,
        [o.groupId, o.topic, partition, offset.toString(), position, applied],
      );
      return applied;
    });

  const consumer = kafka.consumer({
    groupId: o.groupId,
    sessionTimeout: o.sessionTimeoutMs ?? 10_000,
    heartbeatInterval: 1000,
    allowAutoTopicCreation: false,
  });
  await consumer.connect();
  await consumer.subscribe({ topic: o.topic, fromBeginning: true });
  await consumer.run({
    eachBatchAutoResolve: false,
    // Partitions are independent (a stream never spans two), so they may be applied side by side.
    partitionsConsumedConcurrently: o.concurrency ?? 3,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary }) => {
      for (let i = 0; i < batch.messages.length; i += chunkSize) {
        if (!isRunning() || isStale()) return;
        const chunk = batch.messages.slice(i, i + chunkSize);
        try {
          const applied = await applyChunk(batch.partition, chunk);
          o.onChunk?.(batch.partition, chunk.at(-1)!.offset, applied);
        } catch (error) {
          o.onError?.(error);
          throw error;
        }
        // Only now may Kafka hear of it: its offset must never pass the row's.
        resolveOffset(chunk.at(-1)!.offset);
        await commitOffsetsIfNecessary();
        await heartbeat();
      }
    },
  });
  return {
    consumer,
    stop: () => consumer.disconnect(),
  };
};
