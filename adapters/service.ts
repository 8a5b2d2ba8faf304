import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { ProjectionRunner } from '../projections/runner.ts';
import type { Relay } from './bus/relay.ts';
import type { CustodianServer } from './http/server.ts';
import { buildCell, type CellOptions } from './cell.ts';
import type { TenantDatabase } from './shards/databases-env.ts';
import { startShardedService } from './shards/sharded-service.ts';

/** What a service is started with: what each cell is built with, and where it listens and which databases it routes to. */
export interface ServiceOptions extends Omit<CellOptions, 'publicUrl' | 'connectTimeoutMs' | 'databaseName'> {
  readonly host?: string;
  readonly port?: number;
  /** CUSTODIAN_DATABASES: the tenant databases by name; absent or empty, the tenants live in the control database. */
  readonly databases?: readonly TenantDatabase[];
  /** CUSTODIAN_DB_POOL_MAX: the connections one instance holds across its tenant databases (default 20). */
  readonly poolMax?: number;
}

export interface Service {
  readonly url: string;
  readonly pool: pg.Pool;
  readonly store: EventStore;
  readonly runner: ProjectionRunner;
  readonly clock: Clock;
  readonly relay: Relay | null;
  /** The HTTP server, with every registered route and the credential it declared. */
  readonly http: CustodianServer;
  close(): Promise<void>;
}

/**
 * The address a tool on this machine reaches the server at: a wildcard bind (`0.0.0.0`,
 * `::`) is not an address to connect to, so it becomes the IPv4 loopback (a `::` bind takes
 * IPv4 too); any other bound address is used as is, bracketed when IPv6.
 */
export const reachableUrl = (address: AddressInfo): string => {
  const wildcard = address.address === '0.0.0.0' || address.address === '::' || address.address === '::ffff:0.0.0.0' || address.address === '';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
};

/** The composition root: one cell on the control database, or (CUSTODIAN_DATABASES) a router over one cell per tenant database. */
export const startService = async (o: ServiceOptions): Promise<Service> => {
  if (o.databases && o.databases.length > 0) return startShardedService({ ...o, databases: o.databases });
  let url = '';
  const cell = await buildCell({ ...o, publicUrl: () => url });
  const app = cell.app;
  await app.listen({ host: o.host ?? '127.0.0.1', port: o.port ?? 41873 });
  url = reachableUrl(app.server.address() as AddressInfo);
  return { url, pool: cell.pool, store: cell.store, runner: cell.runner, clock: cell.clock, relay: cell.relay, http: app, close: () => cell.close() };
};
