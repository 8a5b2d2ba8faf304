import { fork } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../adapters/embedded-postgres/start.ts';
import pg from 'pg';
import { postgresCpuMs } from './pg-cpu.ts';

/**
 * Node CPU of the service alone per put and per audited get: the service runs in a child
 * process (`--cpu-prof` into PROFILE_DIR when set), the clients here with bare `http`
 * requests, so their CPU is not counted. `node --import tsx bench/profile-put.ts`.
 */
const CLIENTS = Number(process.env.PROFILE_CLIENTS ?? 8);
const OPS = Number(process.env.PROFILE_OPS ?? 3000);
const OP = process.env.PROFILE_OP ?? 'put';
const dir = mkdtempSync(path.join(tmpdir(), 'custodian-profile-'));
// PROFILE_PG_STATEMENTS=1: PostgreSQL's own time per statement (pg_stat_statements, nested statements of functions too).
const PG_STATEMENTS = Boolean(process.env.PROFILE_PG_STATEMENTS);
const server = await startEmbeddedPostgres({
  dataDir: dir,
  database: 'profile',
  persistent: false,
  postgresFlags: PG_STATEMENTS ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'] : [],
});
const profileDir = process.env.PROFILE_DIR;
const child = fork(path.join(import.meta.dirname, 'profile-service.ts'), [server.url], {
  execArgv: ['--import', 'tsx', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
});
const message = <T>() => new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));
const { url } = await message<{ url: string }>();
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

const post = (p: string, auth: string, body: unknown) =>
  new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = http.request(
      `${url}${p}`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
const admin = async (p: string, body: unknown) => {
  const r = await post(p, 'bench-admin-key', body);
  if (r.status >= 300) throw new Error(`${p}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
await admin('/v1/tenants', { id: 'bench', settings: { caps: { records: 20_000, bytes: 1 << 30 } } });
await admin('/v1/tenants/bench/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
await admin('/v1/tenants/bench/jobs', { id: 'j', agent: 'scribe', plugin: 'notes', subject: 'bench', input: 'bench', timeout_ms: 86_400_000 });
const mint = async () =>
  ((await admin('/v1/tenants/bench/jobs/j/calls', { function: 'save' })) as { _meta: { 'oz0/records': { ticket: string } } })._meta['oz0/records'].ticket;

// Tickets minted before timing (64 requests each), so the timed phase holds records requests only.
const perClient = Math.ceil(OPS / CLIENTS);
const tickets = await Promise.all(Array.from({ length: CLIENTS }, async () => Promise.all(Array.from({ length: Math.ceil(perClient / 64) * 2 }, mint))));
const body = { note: 'x'.repeat(200), n: 1 };
const warm = async (c: number, t: string, n: number) => {
  for (let i = 0; i < n; i++) await post('/v1/records', t, { op: 'put', scope: `project:c${c}`, record_key: `w${i}`, body, expect: 0 });
};
await Promise.all(tickets.map((ts, c) => warm(c, ts.pop()!, 20)));
const statsSql = PG_STATEMENTS ? new pg.Client({ connectionString: server.url }) : null;
if (statsSql) {
  await statsSql.connect();
  await statsSql.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await statsSql.query('SELECT pg_stat_statements_reset()');
}
child.send('mark');
const pgBefore = postgresCpuMs('profile');
const clientBefore = process.cpuUsage();
const started = performance.now();
let failed = 0;
const latencies: number[] = [];
await Promise.all(
  tickets.map(async (ts, c) => {
    for (let i = 0; i < perClient; i++) {
      const t = ts[Math.floor(i / 64)]!;
      const op =
        OP === 'put'
          ? { op: 'put', scope: `project:c${c}`, record_key: `r${i}`, body, expect: 0 }
          : { op: 'get', scope: `project:c${c}`, record_key: `w${i % 20}` };
      const t0 = performance.now();
      const r = await post('/v1/records', t, op);
      latencies.push(performance.now() - t0);
      if (r.status !== 200) failed++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
const pgMs = postgresCpuMs('profile') - pgBefore;
const client = process.cpuUsage(clientBefore);
child.send('stop');
const { cpuMs, systemMs, statements } = await message<{ cpuMs: number; systemMs: number; statements: [string, number][] }>();
const done = perClient * CLIENTS;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
console.log(
  `${OP} x${CLIENTS}: ${done} in ${seconds.toFixed(1)} s = ${(done / seconds).toFixed(0)}/s, failed ${failed}, p50 ${pct(0.5)} ms p99 ${pct(0.99)} ms, service Node CPU ${(cpuMs / done).toFixed(2)} ms/op`,
);
// Where a put's CPU goes on this machine: the service, PostgreSQL's backends for this database, these clients.
console.log(
  `  CPU per op: service ${(cpuMs / done).toFixed(2)} ms (${(systemMs / done).toFixed(2)} of it in the kernel), PostgreSQL backends ${Number.isNaN(pgMs) ? 'n/a' : (pgMs / done).toFixed(2)} ms, clients ${((client.user + client.system) / 1000 / done).toFixed(2)} ms`,
);
const total = statements.reduce((n, [, c]) => n + c, 0);
console.log(`  statements per op: ${(total / done).toFixed(2)}`);
for (const [text, n] of statements.slice(0, 12)) console.log(`    ${(n / done).toFixed(2)}  ${text}`);
if (statsSql) {
  // Time inside statements called from a function is counted in both: read `toplevel` to tell them apart.
  const { rows } = await statsSql.query<{ ms: number; calls: string; toplevel: boolean; query: string }>(
    `SELECT total_exec_time AS ms, calls::text, toplevel, query FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'profile') ORDER BY total_exec_time DESC LIMIT 25`,
  );
  console.log('  PostgreSQL execution time per op, by statement (pg_stat_statements; * = called inside a function):');
  for (const r of rows)
    console.log(
      `    ${(r.ms / done).toFixed(3)} ms  ${(Number(r.calls) / done).toFixed(2)}/op ${r.toplevel ? ' ' : '*'} ${r.query.replace(/\s+/g, ' ').slice(0, 90)}`,
    );
  await statsSql.end();
}
await new Promise((resolve) => child.once('exit', resolve));
agent.destroy();
await server.stop();
rmSync(dir, { recursive: true, force: true });
