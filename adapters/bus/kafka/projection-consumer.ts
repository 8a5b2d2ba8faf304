import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { ReadModelStore, Sql } from '../../../domain/ports/read-model.ts';
import type { Projection } from '../../../projections/projection.ts';
import { applyEvent } from '../../../projections/runner.ts';
import { decodeEvent, sourceOf } from './codec.ts';

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
 * below the highest already applied in its partition from its source database is dropped too:
 * that is the relay publishing a batch again after a crash (a stream always maps to one
 * partition, so a partition's positions of one database's log only grow). With several tenant
 * databases each relays its own log, its messages naming it (`database` header): the positions
 * of different databases are not one sequence, so each has its own high mark (one row per
 * source; '' with one database, whose row also holds the partition's Kafka offset).
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
      // The anchor row (source '') is locked first: chunks of one partition never interleave.
      const { rows } = await sql.query<{ source: string; kafka_offset: string; position: string }>(
        `SELECT source, kafka_offset, position FROM custodian_consumer_offsets WHERE group_id = $1 AND topic = $2 AND partition = $3
         ORDER BY source FOR UPDATE`,
        [o.groupId, o.topic, partition],
      );
      let offset = BigInt(rows.find((r) => r.source === '')!.kafka_offset);
      const positions = new Map(rows.map((r) => [r.source, Number(r.position)]));
      const appliedBy = new Map<string, number>();
      let applied = 0;
      for (const m of messages) {
        if (BigInt(m.offset) <= offset) continue;
        const decoded = decodeEvent(m.key, m.value);
        // A message that is not an event of ours stops this partition here (and is reported)
        // rather than being stepped over: the read model must not silently miss an event.
        if (!decoded.ok) throw new Error(`${o.topic}[${partition}] offset ${m.offset}: ${decoded.error}`);
        const source = sourceOf(m.headers);
        if (decoded.event.position > (positions.get(source) ?? 0)) {
          for (const p of projections) await applyEvent(p, sql, decoded.event);
          positions.set(source, decoded.event.position);
          appliedBy.set(source, (appliedBy.get(source) ?? 0) + 1);
          applied += 1;
        }
        offset = BigInt(m.offset);
      }
      await sql.query(`UPDATE custodian_consumer_offsets SET kafka_offset = $4 WHERE group_id = $1 AND topic = $2 AND partition = $3 AND source = ''`, [
        o.groupId,
        o.topic,
        partition,
        offset.toString(),
      ]);
      const sources = [...appliedBy.keys()];
      if (sources.length > 0)
        await sql.query(
          `INSERT INTO custodian_consumer_offsets (group_id, topic, partition, source, kafka_offset, position, applied)
           SELECT $1, $2, $3, s, -1, p, n FROM unnest($4::text[], $5::bigint[], $6::bigint[]) AS x(s, p, n)
           ON CONFLICT (group_id, topic, partition, source) DO UPDATE SET position = EXCLUDED.position,
             applied = custodian_consumer_offsets.applied + EXCLUDED.applied`,
          [o.groupId, o.topic, partition, sources, sources.map((s) => positions.get(s)!), sources.map((s) => appliedBy.get(s)!)],
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
