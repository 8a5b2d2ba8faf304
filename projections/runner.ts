import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../domain/events/registry.ts';
import type { EventStore, RecordedEvent } from '../domain/ports/event-store.ts';
import type { ReadModelStore, Sql } from '../domain/ports/read-model.ts';
import type { Projection } from './projection.ts';
import { wakeLoop } from '../domain/shared/wake-loop.ts';

export const CHECKPOINTS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS custodian_checkpoints (
    name text PRIMARY KEY,
    position bigint NOT NULL
  );`;

export interface RunnerOptions {
  readonly batchSize?: number;
  readonly pollMs?: number;
  /** Called after each committed batch (tests and progress bars listen here). */
  readonly onBatch?: (projection: string, checkpoint: number, applied: number) => void;
  readonly onError?: (projection: string, error: unknown) => void;
  /**
   * Projections no answer waits for (the audit log): they run in their own batches, after the
   * others, so a write's answer does not wait for them. catchUp still drains them.
   */
  readonly lagging?: readonly string[];
}

export const applyEvent = async (p: Projection, sql: Sql, recorded: RecordedEvent) => {
  const decoded = eventRegistry.decode(recorded.type, recorded.schema_version, recorded.data);
  // An event this build cannot read must stop the projection, not be stepped over.
  if (E.isLeft(decoded)) throw new Error(`projection ${p.name} at position ${recorded.position}: ${decoded.left}`);
  await p.apply(sql, decoded.right, recorded);
};

/** Locks the projection's checkpoint row for this transaction, creating it at 0. */
const lockCheckpoint = async (sql: Sql, name: string): Promise<number> => {
  await sql.query('INSERT INTO custodian_checkpoints (name, position) VALUES ($1, 0) ON CONFLICT DO NOTHING', [name]);
  const { rows } = await sql.query<{ position: number }>('SELECT position FROM custodian_checkpoints WHERE name = $1 FOR UPDATE', [name]);
  return Number(rows[0]!.position);
};

/** The same for several projections in two statements, locked in name order (no lock cycles). */
const lockCheckpoints = async (sql: Sql, names: readonly string[]): Promise<Record<string, number>> => {
  await sql.query('INSERT INTO custodian_checkpoints (name, position) SELECT unnest($1::text[]), 0 ON CONFLICT DO NOTHING', [names]);
  const { rows } = await sql.query<{ name: string; position: number }>(
    'SELECT name, position FROM custodian_checkpoints WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE',
    [names],
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.position)]));
};

const saveCheckpoint = (sql: Sql, name: string, position: number) =>
  sql.query('UPDATE custodian_checkpoints SET position = $2 WHERE name = $1', [name, position]);

export const ensureProjectionSchemas = async (db: ReadModelStore, projections: readonly Projection[]) => {
  await db.transaction(async (sql) => {
    await sql.query('SELECT pg_advisory_xact_lock(7243002)');
    await sql.query(CHECKPOINTS_SCHEMA);
    for (const p of projections) await sql.query(p.schema);
  });
};

/**
 * One batch for a group of projections: lock their checkpoints, read the log once after the
 * lowest, apply each event to every projection that has not seen it, move the checkpoints —
 * all in one transaction. A crash anywhere leaves either the whole batch or none of it.
 */
export const runBatch = async (store: EventStore, db: ReadModelStore, group: Projection | readonly Projection[], batchSize: number) => {
  const projections = Array.isArray(group) ? (group as readonly Projection[]) : [group as Projection];
  return db.transaction(async (sql) => {
    const from = await lockCheckpoints(sql, projections.map((p) => p.name));
    const lowest = Math.min(...projections.map((p) => from[p.name]!));
    const events = await store.readAll(lowest, { limit: batchSize });
    for (const e of events) for (const p of projections) if (e.position > from[p.name]!) await applyEvent(p, sql, e);
    const checkpoint = events.at(-1)?.position ?? lowest;
    const moved = projections.filter((p) => checkpoint > from[p.name]!).map((p) => p.name);
    if (moved.length > 0) await sql.query('UPDATE custodian_checkpoints SET position = $2 WHERE name = ANY($1::text[])', [moved, checkpoint]);
    return { checkpoint, applied: events.length, from };
  });
};

/**
 * Replays a projection from position 0 in one transaction, so readers see the old model
 * until the new one is whole, and a live runner waits on the checkpoint lock meanwhile.
 */
export const rebuildProjection = async (
  store: EventStore,
  db: ReadModelStore,
  p: Projection,
  onProgress?: (done: number, head: number) => void,
  batchSize = 1000,
): Promise<number> => {
  const head = await store.headPosition();
  return db.transaction(async (sql) => {
    await lockCheckpoint(sql, p.name);
    for (const table of p.tables) await sql.query(`TRUNCATE ${table}`);
    let position = 0;
    onProgress?.(0, head);
    for (;;) {
      const events = await store.readAll(position, { limit: batchSize });
      if (events.length === 0) break;
      for (const e of events) await applyEvent(p, sql, e);
      position = events.at(-1)!.position;
      onProgress?.(Math.min(position, head), head);
    }
    await saveCheckpoint(sql, p.name, position);
    return position;
  });
};

export interface ProjectionRunner {
  start(): void;
  stop(): Promise<void>;
  /** Resolves once every projection but the lagging ones has applied the log up to `position`. */
  waitFor(position: number, timeoutMs?: number): Promise<boolean>;
  /** Runs every projection until none has anything left to read. */
  catchUp(): Promise<void>;
  checkpoints(): Readonly<Record<string, number>>;
}

export const createProjectionRunner = (
  store: EventStore,
  db: ReadModelStore,
  projections: readonly Projection[],
  { batchSize = 500, pollMs = 250, onBatch, onError, lagging = [] }: RunnerOptions = {},
): ProjectionRunner => {
  const leading = projections.filter((p) => !lagging.includes(p.name));
  const groups = [leading, projections.filter((p) => lagging.includes(p.name))].filter((g) => g.length > 0);
  const checkpoints: Record<string, number> = Object.fromEntries(projections.map((p) => [p.name, 0]));
  const waiters = new Set<{ position: number; resolve: (ok: boolean) => void }>();

  const lowest = () => Math.min(...leading.map((p) => checkpoints[p.name] ?? 0));
  const settleWaiters = () => {
    const low = lowest();
    for (const w of waiters) if (w.position <= low) {
      waiters.delete(w);
      w.resolve(true);
    }
  };

  const drain = async (group: readonly Projection[]) => {
    for (;;) {
      const { checkpoint, applied } = await runBatch(store, db, group, batchSize);
      for (const p of group) checkpoints[p.name] = Math.max(checkpoints[p.name] ?? 0, checkpoint);
      if (applied > 0) onBatch?.(group.map((p) => p.name).join(','), checkpoint, applied);
      settleWaiters();
      if (applied < batchSize) return;
    }
  };

  const catchUp = async () => {
    for (const group of groups) {
      try {
        await drain(group);
      } catch (error) {
        onError?.(group.map((p) => p.name).join(','), error);
      }
    }
  };

  const loop = wakeLoop(
    (signal) => store.onAppend(signal),
    async () => {
      await catchUp();
      return { pauseMs: pollMs };
    },
  );

  return {
    start: () => loop.start(),
    async stop() {
      await loop.stop();
      for (const w of waiters) w.resolve(false);
      waiters.clear();
    },
    waitFor(position, timeoutMs = 10_000) {
      if (position <= lowest()) return Promise.resolve(true);
      return new Promise((resolve) => {
        const w = {
          position,
          resolve: (ok: boolean) => {
            clearTimeout(timer);
            resolve(ok);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          resolve(false);
        }, timeoutMs);
        waiters.add(w);
        loop.wake();
      });
    },
    catchUp,
    checkpoints: () => ({ ...checkpoints }),
  };
};
