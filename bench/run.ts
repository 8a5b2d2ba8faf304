import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../adapters/embedded-postgres/start.ts';
import { createPool } from '../adapters/postgres/pool.ts';
import { benchEventStore } from './eventstore.ts';
import { benchRecords } from './records.ts';
import { benchKafka } from './kafka.ts';
import { benchHostileUploads } from './hostile-uploads.ts';
import { benchFit } from './fit.ts';
import { benchColdScope } from './cold-scope.ts';

// `npm run bench`: figures as ratios against a baseline measured in the same run. Never part of `npm test`.
const total = Number(process.env.BENCH_OPS ?? 3000);
// BENCH_ONLY=eventstore,records,cold,kafka,uploads,fit picks sections (default: all).
const only = (process.env.BENCH_ONLY ?? 'eventstore,records,cold,kafka,uploads,fit').split(',');
// The fit section is pure: it runs first and, alone, needs no database.
if (only.includes('fit')) benchFit();
if (only.every((section) => section === 'fit')) process.exit(process.exitCode ?? 0);
const dir = process.env.DATABASE_URL ? null : mkdtempSync(path.join(tmpdir(), 'custodian-bench-'));
const server = dir ? await startEmbeddedPostgres({ dataDir: dir, database: 'bench', persistent: false }) : null;
const url = process.env.DATABASE_URL ?? server!.url;
console.log(`PostgreSQL: ${server ? 'embedded (throwaway)' : 'DATABASE_URL'}; ${total} operations per row`);
const pool = createPool(url, 40);
try {
  if (only.includes('eventstore')) await benchEventStore(pool, total);
  if (only.includes('records')) {
    // The API runs on a database of its own: the event-store bench leaves events no projection knows.
    await pool.query('DROP DATABASE IF EXISTS bench_api');
    await pool.query('CREATE DATABASE bench_api');
    const apiUrl = new URL(url);
    apiUrl.pathname = '/bench_api';
    await benchRecords(pool, apiUrl.toString(), Number(process.env.BENCH_API_OPS ?? 2000));
  }
  if (only.includes('cold')) {
    await pool.query('DROP DATABASE IF EXISTS bench_cold');
    await pool.query('CREATE DATABASE bench_cold');
    const coldUrl = new URL(url);
    coldUrl.pathname = '/bench_cold';
    await benchColdScope(coldUrl.toString());
  }
  if (only.includes('uploads')) {
    await pool.query('DROP DATABASE IF EXISTS bench_uploads');
    await pool.query('CREATE DATABASE bench_uploads');
    const uploadsUrl = new URL(url);
    uploadsUrl.pathname = '/bench_uploads';
    await benchHostileUploads(uploadsUrl.toString());
  }
  if (only.includes('kafka')) await benchKafka(pool, url, Number(process.env.BENCH_KAFKA_PUTS ?? 3000));
} catch (error) {
  console.error('bench failed:', error);
  process.exitCode = 1;
} finally {
  await pool.end();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
