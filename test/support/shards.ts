import { randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../adapters/embedded-postgres/start.ts';
import { newAuditKey } from '../../adapters/keys/audit-key.ts';
import { startService, type Service } from '../../adapters/service.ts';
import type { TenantDatabase } from '../../adapters/shards/databases-env.ts';
import type { Cell } from '../../adapters/cell.ts';
import type { KafkaSettings } from '../../adapters/bus/kafka/client.ts';
import { freshDatabase } from './database.ts';
import { ADMIN_KEY, adminCall, type TestService } from './service.ts';

/** One tenant database on its own embedded PostgreSQL server, which a test can stop and start again. */
export interface TenantServer extends TenantDatabase {
  stop(): Promise<void>;
  /** Starts the server again on its data directory and port: the same URL, the same data. */
  start(): Promise<void>;
  /** Stops it for good and deletes its data. */
  remove(): Promise<void>;
}

/** `n` real PostgreSQL servers (the embedded package started `n` times), named db1…dbn. */
export const startTenantServers = async (n: number): Promise<TenantServer[]> =>
  Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const dir = mkdtempSync(path.join(tmpdir(), `custodian-test-shard-${i + 1}-`));
      const boot = () => startEmbeddedPostgres({ dataDir: dir, database: 'custodian', persistent: true });
      let server: EmbeddedServer | null = await boot();
      return {
        name: `db${i + 1}`,
        url: server.url,
        async stop() {
          await server?.stop();
          server = null;
        },
        async start() {
          server = await boot();
        },
        async remove() {
          await server?.stop();
          server = null;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }),
  );

export type ShardedInstance = Pick<TestService, 'url' | 'admin'> & Service & { readonly cells: ReadonlyMap<string, Cell> };

/**
 * Instances of the service over `databases`, all on one control database (a fresh one on the
 * run's server) and the same keys: stateless instances of one deployment.
 */
export const shardedDeployment = async (databases: readonly TenantDatabase[], keys?: { masterKey: Buffer; auditKey: KeyObject }, kafka?: KafkaSettings) => {
  const control = await freshDatabase();
  const masterKey = keys?.masterKey ?? randomBytes(32);
  const auditKey: KeyObject = keys?.auditKey ?? newAuditKey();
  const instances: ShardedInstance[] = [];
  return {
    control,
    masterKey,
    auditKey,
    async instance(): Promise<ShardedInstance> {
      const service = (await startService({
        databaseUrl: control.url,
        databases: databases.map(({ name, url }) => ({ name, url })),
        adminKey: ADMIN_KEY,
        masterKey,
        auditKey,
        port: 0,
        ...(kafka ? { kafka } : {}),
      })) as Service & { readonly cells: ReadonlyMap<string, Cell> };
      const instance: ShardedInstance = {
        ...service,
        admin: adminCall(service.url),
      };
      instances.push(instance);
      return instance;
    },
    async close() {
      for (const i of instances) await i.close();
      await control.drop();
    },
  };
};
