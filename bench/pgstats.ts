import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** What a phase cost the database (and the Node process), in totals. */
export interface Cost {
  /** Top-level SQL statements, BEGIN/COMMIT/ROLLBACK/SAVEPOINT excluded (NaN without pg_stat_statements). */
  readonly statements: number;
  /** BEGIN, COMMIT, ROLLBACK, SAVEPOINT … (NaN without pg_stat_statements). */
  readonly control: number;
  /** Committed transactions in the phase's database, read-only ones included (pg_stat_database.xact_commit). */
  readonly commits: number;
  /** WAL fsyncs, the whole cluster (pg_stat_wal.wal_sync): durable flushes. */
  readonly walSyncs: number;
  readonly walWrites: number;
  /** CPU time of this Node process, ms: the bench's clients, and the service when it runs in-process. */
  readonly cpuMs: number;
}

export interface Phase {
  end(): Promise<Cost>;
}

export interface PgStats {
  readonly statementsAvailable: boolean;
  readonly settings: string;
  /**
   * A pool whose backends must report their pending statistics before a figure is read, or,
   * for a pool in another process, a function that makes them report (see `forcePoolFlush`).
   */
  track(source: StatsSource, database: string): void;
  untrack(source: StatsSource): void;
  begin(database: string): Promise<Phase>;
  close(): Promise<void>;
}

/** A pool in this process, or a way to reach one in another (the records service's child). */
export type StatsSource = pg.Pool | (() => Promise<void>);

/** Every connection of `pool` publishes its pending counters (see `openPgStats`). */
export const forcePoolFlush = async (pool: pg.Pool) => {
  await Promise.all(
    // pg-pool keeps every client, idle or busy, in `_clients`; a busy one runs this between
    // its owner's statements (a harmless SELECT) and publishes when its transaction ends.
    ((pool as unknown as { _clients?: pg.Client[] })._clients ?? []).map(async (c) => {
      try {
        await c.query('SELECT pg_stat_force_next_flush()');
      } catch {
        // a broken or aborted connection: its backend publishes when it ends
      }
    }),
  );
};

const CONTROL = String.raw`^\s*(BEGIN|COMMIT|ROLLBACK|START TRANSACTION|SAVEPOINT|RELEASE|END)\y`;

/**
 * Per-phase database cost from the server's own counters. PostgreSQL 15 backends keep their
 * counters locally and publish them at most once a second, or 10 s after going idle, so a
 * figure read right after a phase would be short. Before each read every tracked pool's
 * connections run `pg_stat_force_next_flush()`, which publishes at the end of that statement
 * (that statement's own commit is published only at the backend's next flush, so it never
 * lands inside the phase it closes: measured, a phase of 0 operations reads 0 commits).
 * Those statements are left out of the statement counts. The stats connection itself sits in the
 * `postgres` database, so its own queries never count against the measured one.
 * pg_stat_database and pg_stat_wal are diffed between two reads (pg_stat_reset() only resets
 * the current database); pg_stat_statements, which is updated synchronously, is reset.
 */
export const openPgStats = async (serverUrl: string): Promise<PgStats> => {
  const url = new URL(serverUrl);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  client.on('error', () => undefined);
  await client.connect();
  let statementsAvailable = true;
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
  } catch {
    statementsAvailable = false;
  }
  const { rows: settingRows } = await client.query<{ name: string; setting: string }>(
    "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'shared_preload_libraries') ORDER BY name",
  );
  const settings = settingRows.map((r) => `${r.name}=${r.setting}`).join(', ');
  const tracked = new Map<StatsSource, string>();

  /** Every connection of every tracked pool publishes its counters. */
  const flushAll = async () => {
    await Promise.all([...tracked.keys()].map((source) => (typeof source === 'function' ? source() : forcePoolFlush(source))));
    await client.query('SELECT pg_stat_force_next_flush()');
    await sleep(300);
  };

  const read = async (database: string) => {
    const { rows } = await client.query<{ commits: string; wal_sync: string; wal_write: string }>(
      'SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = $1) AS commits, wal_sync, wal_write FROM pg_stat_wal',
      [database],
    );
    let statements = NaN;
    let control = NaN;
    if (statementsAvailable) {
      const s = await client.query<{ statements: string; control: string }>(
        `SELECT coalesce(sum(calls) FILTER (WHERE NOT ctl), 0) AS statements, coalesce(sum(calls) FILTER (WHERE ctl), 0) AS control
           FROM (SELECT s.calls, s.query ~* $2 AS ctl FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                  WHERE d.datname = $1 AND s.query NOT ILIKE '%pg_stat_force_next_flush%') x`,
        [database, CONTROL],
      );
      statements = Number(s.rows[0]!.statements);
      control = Number(s.rows[0]!.control);
    }
    const r = rows[0]!;
    return { statements, control, commits: Number(r.commits ?? 0), walSyncs: Number(r.wal_sync), walWrites: Number(r.wal_write) };
  };

  return {
    statementsAvailable,
    settings,
    track: (source, database) => void tracked.set(source, database),
    untrack: (source) => void tracked.delete(source),
    async begin(database) {
      await flushAll();
      if (statementsAvailable) await client.query('SELECT pg_stat_statements_reset()');
      const before = await read(database);
      const cpu = process.cpuUsage();
      return {
        async end() {
          const cpuUsed = process.cpuUsage(cpu);
          await flushAll();
          const after = await read(database);
          // BENCH_TOP_STATEMENTS=N: which statements the figures count (the N most called), to see where they come from.
          const top = Number(process.env.BENCH_TOP_STATEMENTS ?? 0);
          if (statementsAvailable && top > 0) {
            const { rows: most } = await client.query<{ calls: string; query: string }>(
              `SELECT s.calls, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110) AS query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                WHERE d.datname = $1 ORDER BY s.calls DESC LIMIT $2`,
              [database, top],
            );
            for (const m of most) console.log(`      ${String(m.calls).padStart(7)}  ${m.query}`);
          }
          return {
            statements: after.statements,
            control: after.control,
            commits: after.commits - before.commits,
            walSyncs: after.walSyncs - before.walSyncs,
            walWrites: after.walWrites - before.walWrites,
            cpuMs: (cpuUsed.user + cpuUsed.system) / 1000,
          };
        },
      };
    },
    async close() {
      await client.end();
    },
  };
};

/** Cost per operation, as table cells: statements, tx control, commits, WAL flushes, Node CPU ms. */
export const perOp = (cost: Cost, ops: number): string[] => {
  const d = (n: number, digits: number) => (Number.isFinite(n) ? (n / Math.max(ops, 1)).toFixed(digits) : 'n/a');
  return [d(cost.statements, 2), d(cost.control, 2), d(cost.commits, 2), d(cost.walSyncs, 2), d(cost.cpuMs, 3)];
};
export const PER_OP_HEADERS = ['stmts/op', 'begin+end/op', 'commits/op', 'walsync/op', 'node ms/op'];
