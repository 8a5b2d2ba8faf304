import { RELAY_LOCK } from '../postgres/advisory-locks.ts';
import type { EventStore } from '../../domain/ports/event-store.ts';
import type { Publisher } from '../../domain/ports/publisher.ts';
import type { ReadModelStore } from '../../domain/ports/read-model.ts';
import { wakeLoop } from '../../domain/shared/wake-loop.ts';

export interface RelayOptions {
  /** Names the relay's checkpoint row: one per destination (e.g. "kafka:custodian.events"). */
  readonly target: string;
  readonly batchSize?: number;
  readonly pollMs?: number;
  readonly onBatch?: (position: number, published: number) => void;
  readonly onError?: (error: unknown) => void;
}

export interface Relay {
  start(): void;
  /** Publishes until nothing is left; answers the checkpoint reached. */
  drain(): Promise<number>;
  stop(): Promise<void>;
  /** The checkpoint as of the last batch this process ran (0 before the first). */
  position(): number;
}

/**
 * Moves committed events from the log to a publisher, in position order, at least once.
 * Each batch runs in one transaction that holds the target's lock: read after it, publish,
 * move it. Two relays on one target take turns on that lock instead of both publishing; a
 * crash after the publish and before the commit publishes that batch again, which consumers
 * drop by position (see the projection consumer). A range in `custodian_relay_skips` (a
 * tenant's events a move copied in, published already from the database it left) is stepped over.
 */
export const createRelay = (store: EventStore, db: ReadModelStore, publisher: Publisher, o: RelayOptions): Relay => {
  const batchSize = o.batchSize ?? 500;
  let failures = 0;
  let checkpoint = 0;

  const batch = () =>
    db.transaction(async (sql) => {
      // An advisory lock, not FOR UPDATE: a row lock takes a transaction id, and an open one
      // would hold back every reader of the log (they stop at the oldest running transaction).
      await sql.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [RELAY_LOCK, o.target]);
      const { rows } = await sql.query<{ position: string }>('SELECT position FROM custodian_relay WHERE target = $1', [o.target]);
      const from = Number(rows[0]?.position ?? 0);
      const read = await store.readAll(from, { limit: batchSize });
      if (read.length === 0) return { position: from, published: 0, read: 0 };
      const position = read.at(-1)!.position;
      // Read after the events, so a move's copy this batch holds has its range here too (one transaction wrote both).
      const { rows: skips } = await sql.query<{ first: string; last: string }>(
        'SELECT first_position AS first, last_position AS last FROM custodian_relay_skips WHERE last_position > $1 AND first_position <= $2',
        [from, position],
      );
      const skipped = (p: number) => skips.some((s) => p >= Number(s.first) && p <= Number(s.last));
      const events = skips.length === 0 ? read : read.filter((e) => !skipped(e.position));
      await publisher.publish(events);
      await sql.query('INSERT INTO custodian_relay (target, position) VALUES ($1, $2) ON CONFLICT (target) DO UPDATE SET position = EXCLUDED.position', [
        o.target,
        position,
      ]);
      return { position, published: events.length, read: read.length };
    });

  const drain = async () => {
    for (;;) {
      const { position, published, read } = await batch();
      checkpoint = position;
      if (published > 0) o.onBatch?.(position, published);
      if (read < batchSize) return position;
    }
  };

  const loop = wakeLoop(
    (signal) => store.onAppend(signal),
    async () => {
      try {
        await drain();
        failures = 0;
        return { pauseMs: o.pollMs ?? 250 };
      } catch (error) {
        // The bus or the database is away: back off (up to 5 s) and try the same batch again.
        failures += 1;
        o.onError?.(error);
        return { pauseMs: Math.min(5000, 100 * 2 ** failures), force: true };
      }
    },
  );

  return {
    start: () => loop.start(),
    drain,
    position: () => checkpoint,
    stop: () => loop.stop(),
  };
};
