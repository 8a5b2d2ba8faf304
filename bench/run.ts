import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../adapters/embedded-postgres/start.ts';
import { createPool } from '../adapters/postgres/pool.ts';
import { benchEventStore } from './eventstore.ts';

// `npm run bench`: figures as ratios against a baseline measured in the same run. Never part of `npm test`.
const total = Number(process.env.BENCH_OPS ?? 3000);
const dir = process.env.DATABASE_URL ? null : mkdtempSync(path.join(tmpdir(), 'custodian-bench-'));
const server = dir ? await startEmbeddedPostgres({ dataDir: dir, database: 'bench', persistent: false }) : null;
const url = process.env.DATABASE_URL ?? server!.url;
console.log(`PostgreSQL: ${server ? 'embedded (throwaway)' : 'DATABASE_URL'}; ${total} operations per row`);
const pool = createPool(url, 40);
try {
  await benchEventStore(pool, total);
} finally {
  await pool.end();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
