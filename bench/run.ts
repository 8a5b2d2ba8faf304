import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { startEmbeddedPostgres } from '../adapters/embedded-postgres/start.ts';
import { createPool } from '../adapters/postgres/pool.ts';
import { benchEventStore, newBaselines } from './eventstore.ts';
import { benchRecords } from './records.ts';
import { benchReadLoad } from './read-load.ts';
import { benchIdle } from './idle.ts';
import { benchColdPut, benchRebuildExport, fillBigLog } from './big-log.ts';
import { benchKafka } from './kafka.ts';
import { benchHostileUploads } from './hostile-uploads.ts';
import { openPgStats } from './pgstats.ts';
import { benchFit } from './fit.ts';
import { benchColdScope } from './cold-scope.ts';
import { benchAgent } from './agent.ts';
import { benchGrowth } from './growth/index.ts';
import { benchScopes } from './scopes.ts';
import { benchTiles } from './tiles.ts';
import { benchAuditVerify } from './audit-verify.ts';
import { benchShards } from './shards.ts';

// `npm run bench`: figures as ratios against a baseline measured in the same run. Never part of `npm test`.
const total = Number(process.env.BENCH_OPS ?? 3000);
const SECTIONS = [
  'fit',
  'eventstore',
  'records',
  'scopes',
  'readload',
  'idle',
  'cold',
  'rebuild',
  'kafka',
  'uploads',
  'agent',
  'growth',
  'tiles',
  'auditverify',
  'shards',
];
// BENCH_ONLY=fit,eventstore,records,scopes,readload,idle,cold,rebuild,kafka,uploads,agent,growth,tiles,auditverify,shards picks sections (default: all).
const only = (process.env.BENCH_ONLY ?? SECTIONS.join(',')).split(',');
// The fit section is pure: it runs first and, alone, needs no database.
if (only.includes('fit')) benchFit();
if (only.every((section) => section === 'fit')) process.exit(process.exitCode ?? 0);
const dir = process.env.DATABASE_URL ? null : mkdtempSync(path.join(tmpdir(), 'custodian-bench-'));
// pg_stat_statements counts statements per operation; only this throwaway server loads it.
const server = dir
  ? await startEmbeddedPostgres({
      dataDir: dir,
      database: 'bench',
      persistent: false,
      postgresFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=top'],
    })
  : null;
const url = process.env.DATABASE_URL ?? server!.url;
const pool = createPool(url, 40);
const stats = await openPgStats(url);
const benchDb = new URL(url).pathname.slice(1);
stats.track(pool, benchDb);
console.log(`PostgreSQL: ${server ? 'embedded (throwaway)' : 'DATABASE_URL'}; ${total} operations per row; ${stats.settings}`);
if (!stats.statementsAvailable) console.log('  pg_stat_statements is not loaded on this server: statements per op show n/a');
console.log('  The machine may be shared: figures are noisy; compare ratios measured in the same run.');

/** A fresh database on the same server for one section; its URL. */
const freshDatabase = async (p: pg.Pool, name: string) => {
  await p.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await p.query(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

const baselines = newBaselines();
try {
  if (only.includes('eventstore')) await benchEventStore(pool, benchDb, await freshDatabase(pool, 'bench_emmett'), stats, total, baselines);
  // The API runs on a database of its own: the event-store bench leaves events no projection knows.
  if (only.includes('records'))
    await benchRecords(pool, benchDb, await freshDatabase(pool, 'bench_api'), stats, Number(process.env.BENCH_API_OPS ?? 2000), baselines);
  // One shared scope against one scope per client, beside fastify + INSERT and fastify + Emmett, fixed-duration phases.
  if (only.includes('scopes'))
    await benchScopes((name) => freshDatabase(pool, name), Number(process.env.BENCH_SECONDS ?? 8), Number(process.env.BENCH_SCOPES_PASSES ?? 2));
  if (only.includes('readload')) await benchReadLoad(await freshDatabase(pool, 'bench_readload'), Number(process.env.BENCH_READ_LOAD_S ?? 60));
  if (only.includes('idle')) await benchIdle(await freshDatabase(pool, 'bench_idle'), stats);
  // A fresh instance's first put into a 20,000-record scope: from its snapshot, and by replaying the stream.
  if (only.includes('cold')) await benchColdScope(await freshDatabase(pool, 'bench_cold'));
  // A big log filled over HTTP: the first put after a restart, then rebuild and a cold export.
  if (only.includes('rebuild')) {
    const bigUrl = await freshDatabase(pool, 'bench_big');
    const keys = await fillBigLog(bigUrl, Number(process.env.BENCH_BIG_RECORDS ?? 19_000), Number(process.env.BENCH_BIG_EVENTS ?? 20_000));
    await benchColdPut(bigUrl, keys);
    await benchRebuildExport(bigUrl, keys);
  }
  // Tenants on 1, 2 and 3 databases through the router against one database without it, and a move.
  if (only.includes('shards'))
    await benchShards((name) => freshDatabase(pool, name), Number(process.env.BENCH_SHARDS_OPS ?? 2000), Number(process.env.BENCH_MOVE_RECORDS ?? 10_000));
  if (only.includes('uploads')) await benchHostileUploads(await freshDatabase(pool, 'bench_uploads'));
  // Agent records (SPEC §12): put and query at 8 clients beside raw INSERT, query latency at 10,000 records.
  if (only.includes('agent')) await benchAgent(pool, await freshDatabase(pool, 'bench_agent'), Number(process.env.BENCH_AGENT_OPS ?? 2000));
  // Growth curves (bench/growth): each growing stream's hot operation against its history size.
  if (only.includes('growth')) await benchGrowth((name) => freshDatabase(pool, name));
  // The audit log as tlog-tiles: entries integrated per second; checkpoint + inclusion proof and a hash tile at 10⁶ entries.
  if (only.includes('tiles'))
    await benchTiles(await freshDatabase(pool, 'bench_tiles'), Number(process.env.BENCH_SECONDS ?? 8), Number(process.env.BENCH_TILES_ENTRIES ?? 1_000_000));
  // A 10⁶-entry tenant log: integrated, then downloaded and verified by the CLI as an auditor runs it.
  if (only.includes('auditverify'))
    await benchAuditVerify(await freshDatabase(pool, 'bench_auditverify'), Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000));
  if (only.includes('kafka')) await benchKafka(pool, url, Number(process.env.BENCH_KAFKA_PUTS ?? 3000));
} catch (error) {
  console.error('bench failed:', error);
  process.exitCode = 1;
} finally {
  await stats.close();
  await pool.end();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
