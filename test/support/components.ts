import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

const has = async (command: string) => {
  try {
    await run('sh', ['-c', `command -v ${command}`]);
    return true;
  } catch {
    return false;
  }
};

type Stop = () => Promise<void>;
interface Found {
  readonly address: string;
  readonly source: string;
  readonly stop?: Stop;
}

/**
 * A Kafka broker for the run: KAFKA_BROKERS when set; else testcontainers when a Docker engine
 * answers; else a real single-node broker from Maven Central jars (scripts/kafka-broker.sh)
 * when Java and Maven are here. Otherwise "", with the reason as the source.
 */
const kafka = async (docker: boolean): Promise<Found> => {
  if (process.env.KAFKA_BROKERS) return { address: process.env.KAFKA_BROKERS, source: 'KAFKA_BROKERS' };
  if (docker) {
    const { KafkaContainer } = await import('@testcontainers/kafka');
    const container = await new KafkaContainer('confluentinc/cp-kafka:7.9.0').withKraft().start();
    return {
      address: `${container.getHost()}:${container.getMappedPort(9093)}`,
      source: 'testcontainers',
      stop: async () => void (await container.stop()),
    };
  }
  if (!(await has('java')) || !(await has('mvn')))
    return { address: '', source: 'KAFKA_BROKERS is not set, no Docker engine answers, and Java or Maven is missing' };
  const dir = mkdtempSync(path.join(tmpdir(), 'custodian-test-kafka-'));
  const script = path.join(root, 'scripts/kafka-broker.sh');
  try {
    const { stdout } = await run(script, ['start', dir], { timeout: 600_000 });
    return {
      address: stdout.trim().split('\n').at(-1)!,
      source: 'scripts/kafka-broker.sh',
      stop: async () => {
        await run(script, ['stop', dir]);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { address: '', source: `the local broker did not start: ${String((error as Error).message).split('\n')[0]}` };
  }
};

/** EventStoreDB: ESDB_URL when set; else testcontainers when a Docker engine answers. */
const esdb = async (docker: boolean): Promise<Found> => {
  if (process.env.ESDB_URL) return { address: process.env.ESDB_URL, source: 'ESDB_URL' };
  if (!docker) return { address: '', source: 'ESDB_URL is not set and no Docker engine answers for testcontainers' };
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('eventstore/eventstore:24.10')
    .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_MEM_DB: 'true', EVENTSTORE_RUN_PROJECTIONS: 'None' })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
    .start();
  return {
    address: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    source: 'testcontainers',
    stop: async () => void (await container.stop()),
  };
};

/** Starts what the run can reach; a CI that requires Kafka (CUSTODIAN_REQUIRE_KAFKA=1) fails here instead of skipping. */
export const startComponents = async (project: TestProject, docker: boolean): Promise<Stop> => {
  const [k, e] = await Promise.all([kafka(docker), esdb(docker)]);
  if (!k.address && process.env.CUSTODIAN_REQUIRE_KAFKA === '1') throw new Error(`CUSTODIAN_REQUIRE_KAFKA=1 but no Kafka broker: ${k.source}`);
  project.provide('kafkaBrokers', k.address);
  project.provide('kafkaSource', k.source);
  project.provide('esdbUrl', e.address);
  project.provide('esdbSource', e.source);
  process.stderr.write(
    `components: kafka ${k.address ? `at ${k.address} (${k.source})` : `unavailable: ${k.source}`}; ` +
      `eventstoredb ${e.address ? `at ${e.address} (${e.source})` : `unavailable: ${e.source}`}\n`,
  );
  return async () => {
    await Promise.all([k.stop?.(), e.stop?.()]);
  };
};
