import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientError } from '../http/client-errors.ts';
import { buildCell, type Cell } from '../cell.ts';
import { createPool } from '../postgres/pool.ts';
import { reachableUrl, type Service, type ServiceOptions } from '../service.ts';
import { cellsOf } from './cells.ts';
import { adoptHeldTenants } from './adopt.ts';
import { cellPoolMax, type TenantDatabase } from './databases-env.ts';
import { placementCache } from './placement-cache.ts';
import { applySchema } from '../postgres/schema.ts';
import { placementStore } from './placement.ts';
import { shardRouter } from './router.ts';
import { tenantMover } from './move.ts';

/** A cell's connect gives up after this long, so a database that stops answering is a 503, not a hung request. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The service over several tenant databases: the control database (`databaseUrl`) holds only
 * the placement; each database of `databases` gets a cell built exactly as the single-database
 * service's, with its own pool, and one HTTP server routes each request by its tenant.
 */
export const startShardedService = async (
  o: ServiceOptions & { readonly databases: readonly TenantDatabase[] },
): Promise<Service & { readonly cells: ReadonlyMap<string, Cell> }> => {
  if (o.eventStore) throw new Error("CUSTODIAN_DATABASES places each tenant's log in its PostgreSQL database: unset ESDB_URL, or CUSTODIAN_DATABASES");
  const control = createPool(o.databaseUrl, 2);
  // The control database has the schema as every Custodian database does (the placement table in it).
  await applySchema(control);
  const placement = placementStore(control);
  let url = '';
  const poolMax = cellPoolMax(o.poolMax ?? 20, o.databases.length);
  const byName = new Map<string, Cell>();
  try {
    // Every tenant database must answer when an instance starts (its tables are made then); once
    // running, one that stops answering costs only its own tenants.
    for (const d of o.databases) {
      const cell = await buildCell({
        ...o,
        databaseUrl: d.url,
        databaseName: d.name,
        poolMax,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        publicUrl: () => url,
      }).catch((error: unknown) => {
        throw new Error(`tenant database ${d.name} (CUSTODIAN_DATABASES) cannot be used: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      });
      byName.set(d.name, cell);
    }
  } catch (error) {
    for (const cell of byName.values()) await cell.close();
    await control.end();
    throw error;
  }
  const cells = cellsOf(byName);
  await adoptHeldTenants(cells, placement);
  const ttlMs = Number(process.env.CUSTODIAN_PLACEMENT_TTL_MS ?? 1000);
  const placements = placementCache(placement, ttlMs);
  const logger = o.logger ? { logger: o.logger } : {};
  const move = tenantMover({
    cells,
    controlUrl: o.databaseUrl,
    placement,
    placements,
    adminKey: o.adminKey,
    ttlMs,
    graceMs: Number(process.env.CUSTODIAN_MOVE_GRACE_MS ?? 2000),
    ...logger,
  });
  const server = http.createServer({ requireHostHeader: false }, shardRouter({ cells, placement, placements, adminKey: o.adminKey, move, ...logger }));
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 41873, o.host ?? '127.0.0.1', () => resolve());
  });
  url = reachableUrl(server.address() as AddressInfo);
  const first = cells.first;
  return {
    url,
    pool: control,
    store: first.store,
    runner: first.runner,
    clock: first.clock,
    relay: first.relay,
    http: first.app,
    cells: byName,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      for (const cell of byName.values()) await cell.close();
      await control.end();
    },
  };
};
