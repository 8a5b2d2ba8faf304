import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../domain/events/registry.ts';
import type { EventStore, RecordedEvent } from '../domain/ports/event-store.ts';
import type { ReadModelStore, Sql } from '../domain/ports/read-model.ts';
import type { Applicable, Projection } from './projection.ts';
import { wakeLoop } from '../domain/shared/wake-loop.ts';
import { wakeablePause } from '../domain/shared/wakeable-pause.ts';

export interface RunnerOptions {
  readonly batchSize?: number;
  /**
   * The safety net: how long the runner rests with nothing to do before it looks at the log
   * again unasked. Appends wake it at once (the store's `onAppend`), so this is rare.
   */
  readonly pollMs?: number;
  /** Called after each committed batch (tests and progress bars listen here). */
  readonly onBatch?: (projection: string, checkpoint: number, applied: number) => void;
  readonly onError?: (projection: string, error: unknown) => void;
  /**
   * Projections no answer waits for (the audit log): they run in their own batches, after the
   * others, so a write's answer does not wait for them. catchUp still drains them.
   */
  readonly lagging?: readonly string[];
  /** Events the lagging group may apply per cycle, so it never starves the others (default: batchSize). */
  readonly laggingShare?: number;
  /**
   * The least time between the end of one cycle and the start of the next while no answer
   * waits on the runner (default 0). Under a steady stream of appends each cycle then takes
   * many events in one transaction instead of a few in many: the cycle's fixed cost (head
   * read, log read, checkpoint lock and update, commit) is paid per batch, not per put. A
   * `waitFor` cuts the rest short, so an answer that promises the models never waits on it.
   */
  readonly coalesceMs?: number;
}

const handledTypes = new WeakMap<Projection, ReadonlySet<string> | null>();
/** Whether `p` reads events of this type (a projection that declares none reads all). */
export const handles = (p: Projection, type: string) => {
  let set = handledTypes.get(p);
  if (set === undefined) handledTypes.set(p, (set = p.canHandle ? new Set(p.canHandle) : null));
  return set === null || set.has(type);
};

const decode = (name: string | (() => string), recorded: RecordedEvent): Applicable => {
  const decoded = eventRegistry.decode(recorded.type, recorded.schema_version, recorded.data);
  // An event this build cannot read must stop the projection, not be stepped over.
  if (E.isLeft(decoded)) throw new Error(`projection ${typeof name === 'string' ? name : name()} at position ${recorded.position}: ${decoded.left}`);
  return { event: decoded.right, recorded };
};

export const applyEvent = async (p: Projection, sql: Sql, recorded: RecordedEvent) => {
  if (!handles(p, recorded.type)) return;
  const { event } = decode(p.name, recorded);
  await p.apply(sql, event, recorded);
};

/**
 * Decodes, once, each event some projection of the group reads: events no one reads are
 * never decoded (SPEC-wise they are still stepped over in order, as the checkpoints move).
 */
const decodeFor = (projections: readonly Projection[], events: readonly RecordedEvent[]) => {
  const out = new Map<number, Applicable>();
  // The readers' names are only for an error: not joined for every event.
  for (const e of events)
    if (projections.some((p) => handles(p, e.type)))
      out.set(
        e.position,
        decode(
          () =>
            projections
              .filter((p) => handles(p, e.type))
              .map((p) => p.name)
              .join(','),
          e,
        ),
      );
  return out;
};

/** Applies a span of the log (after, to] to one projection: set-based when it can. */
const applySpan = async (p: Projection, sql: Sql, items: readonly Applicable[], after: number, to: number, more?: boolean) => {
  if (p.applyBatch) return p.applyBatch(sql, items, more ? { after, to, more } : { after, to });
  for (const { event, recorded } of items) await p.apply(sql, event, recorded);
};

const itemsFor = (p: Projection, events: readonly RecordedEvent[], decoded: ReadonlyMap<number, Applicable>, after: number) => {
  const items: Applicable[] = [];
  for (const e of events) if (e.position > after && handles(p, e.type)) items.push(decoded.get(e.position)!);
  return items;
};

/** Reads the log after a position, at most `limit` events: a cycle's groups share one read of the same span. */
export type LogReader = (after: number, limit: number) => Promise<readonly RecordedEvent[]>;

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

/** The checkpoints as they stand, read without a lock (a missing row is 0). */
const readCheckpoints = async (sql: Sql, names: readonly string[]): Promise<Record<string, number>> => {
  const { rows } = await sql.query<{ name: string; position: number }>('SELECT name, position FROM custodian_checkpoints WHERE name = ANY($1::text[])', [
    names,
  ]);
  const found = Object.fromEntries(rows.map((r) => [r.name, Number(r.position)]));
  return Object.fromEntries(names.map((n) => [n, found[n] ?? 0]));
};

const saveCheckpoint = (sql: Sql, name: string, position: number) =>
  sql.query('UPDATE custodian_checkpoints SET position = $2 WHERE name = $1', [name, position]);

/**
 * One batch for a group of projections. The log is read and decoded first, outside any
 * transaction; then one short transaction locks the checkpoints, applies to every projection
 * what it has not seen (set-based) and moves them — a crash leaves the whole batch or none
 * of it. A transaction holds an id that keeps `pg_snapshot_xmin` back for every reader of
 * the log, so it is opened only when there is something to write, and never waits on a read.
 *
 * `known`: checkpoints the caller believes (the runner's memory); absent, they are read.
 * They only choose where to read from: the locked rows decide what is applied.
 */
export const runBatch = async (
  store: EventStore,
  db: ReadModelStore,
  group: Projection | readonly Projection[],
  batchSize: number,
  known?: Readonly<Record<string, number>>,
  read: LogReader = (after, limit) => store.readAll(after, { limit }),
) => {
  const projections = Array.isArray(group) ? (group as readonly Projection[]) : [group as Projection];
  const names = projections.map((p) => p.name);
  const assumed = known && names.every((n) => known[n] !== undefined) ? known : await readCheckpoints(db, names);
  const lowest = Math.min(...names.map((n) => assumed[n]!));
  const events = await read(lowest, batchSize);
  if (events.length === 0) return { checkpoint: lowest, applied: 0, from: { ...assumed } as Record<string, number> };
  const decoded = decodeFor(projections, events);
  const checkpoint = events.at(-1)!.position;
  if (decoded.size === 0 && !projections.some((p) => p.everySpan)) {
    // No projection of the group reads any of these events: there is nothing to apply, only
    // checkpoints to move — one statement, no transaction. A row moves only if it stands
    // inside the span read (so every event it skips was seen here and is unread by it);
    // its row lock orders this against a runner of another instance applying the same span.
    const { rows } = await db.query<{ name: string }>(
      'UPDATE custodian_checkpoints SET position = $3 WHERE name = ANY($1::text[]) AND position >= $2 AND position < $3 RETURNING name',
      [names, lowest, checkpoint],
    );
    if (rows.length === names.length) {
      const after = Object.fromEntries(names.map((n) => [n, checkpoint]));
      return { checkpoint, applied: events.length, from: { ...assumed } as Record<string, number>, after };
    }
    // A row missing or elsewhere: the full batch below finds where each one stands.
  }
  return db.transaction(async (sql) => {
    const from = await lockCheckpoints(sql, names);
    // A checkpoint below where the read started (memory ahead of the table) is not covered
    // by these events: it waits for the next batch, read from its own place.
    const covered = projections.filter((p) => from[p.name]! >= lowest && from[p.name]! < checkpoint);
    for (const p of covered) await applySpan(p, sql, itemsFor(p, events, decoded, from[p.name]!), from[p.name]!, checkpoint);
    const moved = covered.map((p) => p.name);
    if (moved.length > 0) await sql.query('UPDATE custodian_checkpoints SET position = $2 WHERE name = ANY($1::text[])', [moved, checkpoint]);
    const after = Object.fromEntries(names.map((n) => [n, moved.includes(n) ? checkpoint : from[n]!]));
    return { checkpoint, applied: events.length, from, after };
  });
};

/**
 * The transaction's statements sent one after another in call order, however they are
 * called: a projection may leave a span's writes in flight (`LogSpan.more`) and a pg client
 * takes one query at a time. After a statement fails nothing more is sent, and every later
 * statement fails with that first failure: the transaction is aborted, and whichever
 * statement the rebuild happens to await first (which depends on the machine's load) must
 * report the cause, not PostgreSQL's "current transaction is aborted". `close` stops sending
 * (what is still queued is refused, never sent) and waits for the statement running: nothing
 * may reach the connection after the transaction ends, where it would run outside it.
 */
const inOrder = (sql: Sql) => {
  let tail: Promise<unknown> = Promise.resolve();
  let open = true;
  let failed: { readonly error: unknown } | null = null;
  const query = ((text: string, params?: readonly unknown[]) => {
    const run = tail.then(async () => {
      if (failed) throw failed.error;
      if (!open) throw new Error('the rebuild is over: statement not sent');
      try {
        return await sql.query(text, params);
      } catch (error) {
        failed = { error };
        throw error;
      }
    });
    tail = run.catch(() => undefined);
    return run;
  }) as Sql['query'];
  return {
    sql: { query } as Sql,
    async close() {
      open = false;
      await tail;
    },
  };
};

/**
 * Replays a projection from position 0 in one transaction, so readers see the old model
 * until the new one is whole, and a live runner waits on the checkpoint lock meanwhile.
 * Set-based writes of pages small enough to keep both sides busy: the next page is read,
 * MAC-checked and decoded while this one is written.
 */
export const rebuildProjection = async (
  store: EventStore,
  db: ReadModelStore,
  p: Projection,
  onProgress?: (done: number, head: number) => void,
  batchSize = 2_000,
): Promise<number> => {
  const head = await store.headPosition();
  const replay = async (sql: Sql): Promise<number> => {
    await lockCheckpoint(sql, p.name);
    for (const table of p.tables) await sql.query(`TRUNCATE ${table}`);
    let position = 0;
    onProgress?.(0, head);
    const read = (after: number) => store.readAll(after, { limit: batchSize }).then((events) => ({ events, decoded: decodeFor([p], events) }));
    let next = read(position);
    for (;;) {
      const { events, decoded } = await next;
      if (events.length === 0) break;
      const to = events.at(-1)!.position;
      next = read(to);
      // A failed read-ahead is seen when it is awaited; until then it must not count as unhandled.
      next.catch(() => undefined);
      await applySpan(p, sql, itemsFor(p, events, decoded, position), position, to, true);
      position = to;
      onProgress?.(Math.min(position, head), head);
    }
    await p.settle?.();
    await saveCheckpoint(sql, p.name, position);
    return position;
  };
  return db.transaction(async (tx) => {
    const serial = inOrder(tx);
    try {
      return await replay(serial.sql);
    } finally {
      await serial.close();
    }
  });
};

export interface ProjectionRunner {
  start(): void;
  stop(): Promise<void>;
  /**
   * Resolves true once every projection but the lagging ones has applied the log up to
   * `position`; false when that did not happen within `timeoutMs` (or the runner stopped).
   */
  waitFor(position: number, timeoutMs?: number): Promise<boolean>;
  /** Runs every projection until none has anything left to read. */
  catchUp(): Promise<void>;
  checkpoints(): Readonly<Record<string, number>>;
}

/**
 * The asynchronous projections. Idle means idle: with nothing appended the runner sends no
 * statement at all. An append's NOTIFY wakes it; it compares the log's head with the
 * checkpoints it keeps in memory (one read-only statement) and opens a write transaction
 * only when some projection is behind. Each cycle the leading group is brought up to the
 * head it saw, and the lagging group gets one bounded batch, so neither starves the other.
 */
export const createProjectionRunner = (
  store: EventStore,
  db: ReadModelStore,
  projections: readonly Projection[],
  { batchSize = 500, pollMs = 60_000, onBatch, onError, lagging = [], laggingShare = batchSize, coalesceMs = 0 }: RunnerOptions = {},
): ProjectionRunner => {
  const leading = projections.filter((p) => !lagging.includes(p.name));
  const behind = projections.filter((p) => lagging.includes(p.name));
  const groups = [
    { projections: leading, share: batchSize, drain: true },
    { projections: behind, share: laggingShare, drain: false },
  ].filter((g) => g.projections.length > 0);
  const checkpoints: Record<string, number> = Object.fromEntries(projections.map((p) => [p.name, 0]));
  let loaded = false;
  /** The newest position known to be committed (from a NOTIFY or a waiter): until it is applied, look again soon. */
  let target = 0;
  let retryMs = 0;
  /** When the last cycle ended, and the rest between cycles that a waiter or stop cuts short. */
  let lastCycleEnd = 0;
  const coalescing = wakeablePause();
  let stopping = false;
  /** catchUps in progress: they do not rest either. */
  let hurrying = 0;
  const waiters = new Set<{ position: number; resolve: (ok: boolean) => void }>();

  const lowestOf = (ps: readonly Projection[]) => Math.min(...ps.map((p) => checkpoints[p.name] ?? 0));
  const lowest = () => (leading.length === 0 ? Infinity : lowestOf(leading));
  const settleWaiters = () => {
    const low = lowest();
    for (const w of waiters)
      if (w.position <= low) {
        waiters.delete(w);
        w.resolve(true);
      }
  };

  const batch = async (group: (typeof groups)[number], read: LogReader) => {
    const result = await runBatch(store, db, group.projections, group.share, checkpoints, read);
    const now = ('after' in result ? result.after : undefined) ?? result.from;
    for (const p of group.projections) checkpoints[p.name] = Math.max(checkpoints[p.name] ?? 0, now[p.name] ?? 0);
    if (result.applied > 0) onBatch?.(group.projections.map((p) => p.name).join(','), result.checkpoint, result.applied);
    settleWaiters();
    return result;
  };

  /**
   * One cycle up to `head`: the leading group drains, the lagging one takes its share. A
   * group whose batch fails is left out for the rest of this turn, so it never holds the others up.
   */
  const cycle = async (head: number, broken: Set<(typeof groups)[number]>) => {
    // The groups usually stand at the same place: the span the leading group read (and whose
    // MACs were checked) is read once for both.
    const spans = new Map<string, Promise<readonly RecordedEvent[]>>();
    const read: LogReader = (after, limit) => {
      const key = `${after}:${limit}`;
      let span = spans.get(key);
      if (!span) spans.set(key, (span = store.readAll(after, { limit })));
      span.catch(() => spans.delete(key));
      return span;
    };
    for (const group of groups) {
      if (broken.has(group)) continue;
      try {
        for (;;) {
          if (lowestOf(group.projections) >= head) break;
          const { applied } = await batch(group, read);
          if (!group.drain || applied < group.share) break;
        }
      } catch (error) {
        broken.add(group);
        onError?.(group.projections.map((p) => p.name).join(','), error);
      }
    }
  };

  /** Works until every working projection has reached the head (re-read each cycle); answers whether a batch failed. */
  const work = async (eager = false) => {
    if (!loaded) {
      Object.assign(
        checkpoints,
        await readCheckpoints(
          db,
          projections.map((p) => p.name),
        ),
      );
      loaded = true;
      settleWaiters();
    }
    const broken = new Set<(typeof groups)[number]>();
    const total = () => projections.reduce((sum, p) => sum + (checkpoints[p.name] ?? 0), 0);
    // The head is read again every cycle: what was appended while the lagging group took its
    // share reaches the leading group in the next cycle, not after the whole backlog.
    for (;;) {
      if (!eager) await rest();
      const head = await store.headPosition();
      if (groups.every((g) => broken.has(g) || lowestOf(g.projections) >= head)) return broken.size > 0;
      const before = total();
      await cycle(head, broken).finally(() => (lastCycleEnd = Date.now()));
      // Nothing readable moved (the head's events not yet visible to a read): the next wake-up tries again.
      if (total() === before) return broken.size > 0;
    }
  };

  let running: Promise<boolean> | null = null;
  /** One worker at a time: the loop and catchUp share it. */
  const once = (eager = false) => (running ??= work(eager).finally(() => (running = null)));

  /** Under a stream of appends, lets events gather between cycles (see `coalesceMs`); a waiter or stop cuts it short. */
  const rest = async () => {
    const wait = coalesceMs - (Date.now() - lastCycleEnd);
    if (wait > 0 && waiters.size === 0 && !stopping && hurrying === 0) await coalescing.pause(wait);
  };

  const loop = wakeLoop(
    (signal) =>
      store.onAppend((position) => {
        if (position !== undefined) target = Math.max(target, position);
        signal();
      }),
    async () => {
      try {
        const failed = await once();
        // A failure backs off a little, whatever wakes it.
        if (failed) return { pauseMs: Math.min(pollMs, 1000), force: true };
        // A committed event not readable yet (a transaction open elsewhere holds the log's
        // visible head back): look again shortly, backing off, until it is applied.
        if (groups.some((g) => lowestOf(g.projections) < target)) {
          retryMs = Math.min(500, Math.max(5, retryMs * 2));
          return { pauseMs: retryMs };
        }
        retryMs = 0;
        // Otherwise rest until an append.
        return { pauseMs: pollMs };
      } catch (error) {
        onError?.('runner', error);
        return { pauseMs: Math.min(pollMs, 1000), force: true };
      }
    },
  );

  return {
    start: () => {
      stopping = false;
      loop.start();
    },
    async stop() {
      stopping = true;
      coalescing.wake();
      await loop.stop();
      await running?.catch(() => undefined);
      for (const w of waiters) w.resolve(false);
      waiters.clear();
    },
    waitFor(position, timeoutMs = 10_000) {
      if (loaded && position <= lowest()) return Promise.resolve(true);
      target = Math.max(target, position);
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
        coalescing.wake();
        loop.wake();
      });
    },
    /**
     * Applies everything committed before the call. A transaction open elsewhere in the cluster
     * can hold committed events back from the readable head for a while; catchUp waits them out
     * (up to a minute) instead of answering early with the models short of them.
     */
    async catchUp() {
      const committed = await (store.committedHead?.() ?? store.headPosition());
      const deadline = Date.now() + 60_000;
      hurrying++;
      coalescing.wake();
      try {
        for (let pause = 5; ; pause = Math.min(250, pause * 2)) {
          await running?.catch(() => undefined);
          await once(true).catch((error: unknown) => onError?.('runner', error));
          if (Math.min(...projections.map((p) => checkpoints[p.name] ?? 0)) >= committed || Date.now() > deadline) return;
          await new Promise((r) => setTimeout(r, pause));
        }
      } finally {
        hurrying--;
      }
    },
    checkpoints: () => ({ ...checkpoints }),
  };
};
