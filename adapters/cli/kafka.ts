import type { Command } from 'commander';

/**
 * `custodian kafka relay|consume`: the scale-out processes. The actions load the Kafka client
 * and the stores only when a Kafka command runs.
 */
export const kafkaCommands = (program: Command) => {
  const kafka = program.command('kafka').description('Kafka fan-out: KAFKA_BROKERS, KAFKA_TOPIC (custodian.events), KAFKA_PARTITIONS (6)');

  kafka
    .command('relay')
    .description('publish committed events from the log (DATABASE_URL, or ESDB_URL) to the topic, at least once; key = stream')
    .option('--topic <topic>', 'topic (KAFKA_TOPIC)')
    .option('--data-dir <dir>', 'data directory when DATABASE_URL is not set')
    .action(async (o: { topic?: string; dataDir?: string }) => (await import('./kafka-run.ts')).relay(o));

  kafka
    .command('consume')
    .description('build read models from the topic as one member of a consumer group, into DATABASE_URL, with exactly-once effects')
    .requiredOption('--group <id>', 'consumer group id (members of one group share the partitions)')
    .option('--topic <topic>', 'topic (KAFKA_TOPIC)')
    .option('--projections <names>', 'comma-separated; default every stream-ordered model that needs no keys')
    .option('--data-dir <dir>', 'data directory when DATABASE_URL is not set')
    .action(async (o: { group: string; topic?: string; projections?: string; dataDir?: string }) => (await import('./kafka-run.ts')).consume(o));
};
