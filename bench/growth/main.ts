// A quick look at one curve: `node bench/growth/main.ts jobs 100,1000` (embedded PostgreSQL, throwaway).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../adapters/embedded-postgres/start.ts';
import { benchJobGrowth } from './jobs.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'custodian-growth-'));
const server = await startEmbeddedPostgres({ dataDir: dir, database: 'bench', persistent: false });
try {
  const sizes = (process.argv[3] ?? '100,1000').split(',').map(Number);
  if (process.argv[2] === 'jobs') await benchJobGrowth(server.url, sizes, 10, 1);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
