import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';

/** A `pg_dump` of the database as SQL text, or why there is none (no `pg_dump` on this machine). */
export const pgDump = (databaseUrl: string): { dump: string } | { skipped: string } => {
  try {
    return { dump: execFileSync('pg_dump', ['--dbname', databaseUrl], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 }) };
  } catch (error) {
    return { skipped: `pg_dump could not dump this server: ${(error as Error).message.split('\n')[0]}` };
  }
};

/**
 * Every message on a topic from its start, as raw text, read by a group of its own once at
 * least `count` have come (the caller knows how many the relay published).
 */
export const readTopic = async (brokers: string, topic: string, count: number, ms = 90_000): Promise<string[]> => {
  const kafka = new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `at-rest-${randomUUID()}` });
  const seen: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value?.toString() ?? '');
      },
    });
    const deadline = Date.now() + ms;
    while (seen.length < count) {
      if (Date.now() > deadline) throw new Error(`only ${seen.length} of ${count} messages on ${topic} in ${ms / 1000} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return seen;
  } finally {
    await consumer.disconnect();
  }
};
