import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { PLACEMENT_LOCK } from '../postgres/advisory-locks.ts';
import type { Cell } from '../cell.ts';
import type { Cells } from './cells.ts';
import { readBody, sendJson } from './http-io.ts';
import type { PlacementCache } from './placement-cache.ts';
import type { PlacementStore } from './placement.ts';
import { copyTenant, MoveRefused, purgeTenant, tenantEventCount, tenantLastPosition } from './tenant-copy.ts';
import pg from 'pg';

export interface MoveDeps {
  readonly cells: Cells;
  /** The control database's URL: each move holds its lock on a connection of its own, outside the routing's pool. */
  readonly controlUrl: string;
  readonly placement: PlacementStore;
  readonly placements: PlacementCache;
  readonly adminKey: string;
  /** How old a placement an instance may route by (the placement cache's TTL). */
  readonly ttlMs: number;
  /** Beyond the TTL: how long a request routed just before the pause may still take to commit. */
  readonly graceMs: number;
  readonly logger?: Logger;
}

/** The copy did not check out: nothing was switched, the copy was removed, the tenant stays where it was. */
class MoveCheckFailed extends Error {}

/** The tenant's signed audit checkpoint as its database serves it: its size and root. */
const checkpointOf = async (cell: Cell, tenant: string, adminKey: string): Promise<{ size: number; root: string }> => {
  const answer = await cell.app.inject({
    method: 'GET',
    url: `/v1/tenants/${encodeURIComponent(tenant)}/audit/checkpoint`,
    headers: { authorization: `Bearer ${adminKey}` },
  });
  if (answer.statusCode !== 200) throw new MoveCheckFailed(`the audit checkpoint answered ${answer.statusCode}: ${answer.body}`);
  const { size, root } = answer.json() as { size: number; root: string };
  return { size, root };
};

/** How long a move waits for the source's relay (Kafka) to publish the tenant's last event. */
const RELAY_WAIT_MS = 30_000;

/**
 * With Kafka: waits until the source database's relay has published the tenant's last event, so
 * the copies (new positions in the target) need not be published again. The writes are paused,
 * so that event is final; a relay that cannot publish fails the move's check (nothing changes).
 */
const sourceRelayed = async (source: Cell, tenant: string): Promise<void> => {
  if (!source.relay) return;
  const last = await tenantLastPosition(source.pool, tenant);
  const deadline = Date.now() + RELAY_WAIT_MS;
  while ((await source.relay.drain().catch(() => 0)) < last) {
    if (Date.now() > deadline)
      throw new MoveCheckFailed(`the relay of the source database did not publish the tenant's events to Kafka within ${RELAY_WAIT_MS / 1000} s`);
    await sleep(100);
  }
};

/** A move's body is `{"to": <database>}`: far less than this. */
const MOVE_BODY_BYTES = 4096;

const refuse = (res: ServerResponse, status: number, body: Record<string, unknown>) => sendJson(res, status, body);

/**
 * `POST /v1/tenants/{t}/move {"to": <database>}` (admin): pauses the tenant's writes (every
 * instance answers them 503 `moving` once it reads the placement, within the TTL; the grace
 * lets writes already routed commit), copies its state in log order, checks the copy (event
 * count, the audit tree's size and root), switches the placement, which resumes the writes,
 * and removes the old copy. Until the switch the old copy is whole and is the tenant; after it,
 * the new one is. Run again after an interruption, it removes what the interrupted run left and
 * finishes.
 */
export const tenantMover = (deps: MoveDeps) => async (req: IncomingMessage, res: ServerResponse, tenant: string) => {
  const raw = await readBody(req, MOVE_BODY_BYTES);
  if (raw === null)
    return sendJson(
      res,
      413,
      {
        error: 'too_large',
        field: 'body',
        limit: MOVE_BODY_BYTES,
        message: `the body is too large (at most ${MOVE_BODY_BYTES} bytes): send {"to": <database>}`,
      },
      { connection: 'close' },
    );
  let body: unknown;
  try {
    body = raw === null ? undefined : JSON.parse(raw.toString('utf8'));
  } catch {
    body = undefined;
  }
  const to = (body as { to?: unknown } | undefined)?.to;
  const known = deps.cells.names.join(', ');
  if (body === null || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).some((k) => k !== 'to') || typeof to !== 'string')
    return refuse(res, 400, {
      error: 'invalid',
      field: 'body',
      reason: `send {"to": <database>}, one of ${known}`,
      message: `send {"to": <database>}, one of ${known}`,
    });
  const target = deps.cells.byName.get(to);
  if (!target)
    return refuse(res, 400, {
      error: 'invalid',
      field: 'to',
      reason: `name one of the tenant databases: ${known}`,
      message: `to: name one of the tenant databases: ${known}`,
    });

  // One move of a tenant at a time, across instances: a session lock, let go if this instance dies.
  const lock = new pg.Client({ connectionString: deps.controlUrl });
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    const { rows } = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [PLACEMENT_LOCK, tenant]);
    if (!rows[0]!.ok)
      return sendJson(
        res,
        503,
        {
          error: 'moving',
          reason: 'another move of this tenant is running',
          message: 'another move of this tenant is running: send the move again after Retry-After',
        },
        { 'retry-after': '5' },
      );
    try {
      await move(deps, res, tenant, to, target);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [PLACEMENT_LOCK, tenant]).catch(() => undefined);
    }
  } finally {
    await lock.end().catch(() => undefined);
  }
};

const move = async (deps: MoveDeps, res: ServerResponse, tenant: string, to: string, target: Cell) => {
  const settle = () => sleep(deps.ttlMs + deps.graceMs);
  const placed = (await deps.placement.of(tenant))!;
  // A finished move's old copy that was not removed yet (its instance stopped): remove it now.
  if (placed.movedFrom !== null && placed.movedFrom !== placed.database) {
    await purgeTenant(deps.cells.byName.get(placed.movedFrom)!.pool, tenant);
    await deps.placement.removed(tenant);
  }
  if (placed.database === to) {
    // An interrupted move back here left a copy in the database it was going to: remove it and resume.
    if (placed.movingTo !== null && placed.movingTo !== to) await purgeTenant(deps.cells.byName.get(placed.movingTo)!.pool, tenant);
    if (placed.movingTo !== null) await deps.placement.setMoving(tenant, null);
    deps.placements.forget(tenant);
    return sendJson(res, 200, { tenant, from: to, to, moved: false, reason: `the tenant is on ${to}` });
  }
  const source = deps.cells.byName.get(placed.database)!;
  // A move interrupted on its way to another database left a copy there: remove it.
  if (placed.movingTo !== null && placed.movingTo !== to) await purgeTenant(deps.cells.byName.get(placed.movingTo)!.pool, tenant);
  const paused = Date.now();
  await deps.placement.setMoving(tenant, to);
  deps.placements.forget(tenant);
  await settle();
  let copied: { readonly events: number };
  let audit: { size: number; root: string };
  try {
    await source.runner.catchUp();
    await target.runner.catchUp();
    // A run interrupted after its copy committed left the whole tenant here (a copy is one
    // transaction, and the writes were paused since): it is kept and checked, not copied again.
    // Projected a second time, the same events would meet the audit projection's memory of the
    // tenant's tree in the runners of this database. Anything else is removed and copied anew.
    const sourceEvents = await tenantEventCount(source.pool, tenant);
    const already = await tenantEventCount(target.pool, tenant);
    if (already > 0 && already === sourceEvents) copied = { events: already };
    else {
      if (already > 0) await purgeTenant(target.pool, tenant);
      await sourceRelayed(source, tenant);
      copied = await copyTenant(source.pool, target.pool, target.inline, tenant, target.relay !== null);
    }
    const [sourceNow, targetEvents] = [await tenantEventCount(source.pool, tenant), await tenantEventCount(target.pool, tenant)];
    if (sourceNow !== targetEvents || targetEvents !== copied.events)
      throw new MoveCheckFailed(`events: ${sourceNow} in ${placed.database}, ${targetEvents} in ${to}`);
    await target.runner.catchUp();
    await source.runner.catchUp();
    audit = await checkpointOf(source, tenant, deps.adminKey);
    const copy = await checkpointOf(target, tenant, deps.adminKey);
    if (copy.size !== audit.size || copy.root !== audit.root)
      throw new MoveCheckFailed(`the audit tree: size ${audit.size} root ${audit.root} in ${placed.database}, size ${copy.size} root ${copy.root} in ${to}`);
    await deps.placement.switchTo(tenant, to);
    deps.placements.forget(tenant);
  } catch (error) {
    // Nothing switched: the tenant is whole where it was. Its copy goes and its writes resume.
    await purgeTenant(target.pool, tenant).catch(() => undefined);
    await deps.placement.setMoving(tenant, null);
    deps.placements.forget(tenant);
    if (!(error instanceof MoveCheckFailed || error instanceof MoveRefused)) throw error;
    deps.logger?.warn({ tenant, to, reason: error.message }, 'move refused');
    return refuse(res, 409, {
      error: 'move_failed',
      reason: error.message,
      message: `the move did not check out (${error.message}): the tenant stays on ${placed.database}, unchanged; nothing was switched`,
    });
  }
  const pausedMs = Date.now() - paused;
  // Reads routed by a placement read before the switch may still reach the old copy for a TTL.
  await settle();
  await purgeTenant(source.pool, tenant);
  await deps.placement.removed(tenant);
  return sendJson(res, 200, { tenant, from: placed.database, to, moved: true, events: copied.events, audit, paused_ms: pausedMs });
};
