// A quick look at one curve: `node --import tsx bench/growth/main.ts jobs|tenant|agent|log 100,1000` (embedded PostgreSQL, throwaway).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../adapters/embedded-postgres/start.ts';
import { benchAgentGrowth } from './agent.ts';
import { benchBigLogGrowth } from './big-log.ts';
import { benchJobGrowth } from './jobs.ts';
import { benchTenantGrowth } from './streams.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'custodian-growth-'));
const server = await startEmbeddedPostgres({ dataDir: dir, database: 'bench', persistent: false });
try {
  const sizes = (process.argv[3] ?? '100,1000').split(',').map(Number);
  if (process.argv[2] === 'jobs') await benchJobGrowth(server.url, sizes, 10, 1);
  if (process.argv[2] === 'log') await benchBigLogGrowth(server.url, sizes, 120);
  if (process.argv[2] === 'tenant') await benchTenantGrowth(server.url, sizes);
  if (process.argv[2] === 'agent') await benchAgentGrowth(server.url, sizes);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
