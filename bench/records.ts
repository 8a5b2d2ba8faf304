import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startService } from '../adapters/service.ts';
import { newAuditKey } from '../adapters/keys/audit-key.ts';
import { fmt, measure, row, type Measured } from './harness.ts';

const ADMIN = 'bench-admin-key';

/**
 * Statements sent by this process (every pg client, the service's included) and commits on
 * the API's database, so each row can say what one operation costs the database.
 */
let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

const commits = async (pool: pg.Pool, db: string) =>
  Number((await pool.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [db])).rows[0]!.n);

/**
 * Records put and get over HTTP against raw single-row INSERTs on the same server, at the
 * same concurrency, in the same run. Each client writes its own scope (its own stream), as
 * separate plugins' and agents' scopes would.
 */
export const benchRecords = async (pool: pg.Pool, url: string, total: number) => {
  const svc = await startService({ databaseUrl: url, adminKey: ADMIN, masterKey: randomBytes(32), auditKey: newAuditKey(), port: 0 });
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${path}: ${await res.text()}`);
    return (await res.json()) as { _meta: { 'oz0/records': { ticket: string } } };
  };
  await admin('/v1/tenants', { id: 'bench', settings: { caps: { records: 20_000, bytes: 1 << 30 } } });
  await admin('/v1/tenants/bench/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  await admin('/v1/tenants/bench/jobs', { id: 'bench-job', agent: 'scribe', plugin: 'notes', subject: 'bench', input: 'bench', timeout_ms: 86_400_000 });

  // A call allows 64 requests: each client mints a new call when its ticket is spent.
  const tickets = new Map<number, { ticket: string; used: number }>();
  const ticketFor = async (client: number) => {
    let t = tickets.get(client);
    if (!t || t.used >= 64) {
      const minted = await admin('/v1/tenants/bench/jobs/bench-job/calls', { function: 'save' });
      t = { ticket: minted._meta['oz0/records'].ticket, used: 0 };
      tickets.set(client, t);
    }
    t.used++;
    return t.ticket;
  };
  const rec = async (client: number, body: unknown) => {
    const res = await fetch(`${svc.url}/v1/records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ticketFor(client)}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`records: ${JSON.stringify(answer)}`);
    return answer;
  };

  const body = { note: 'x'.repeat(200), n: 1 };
  const apiDb = new URL(url).pathname.slice(1);
  const line = (what: string, clients: number, raw: Measured, m: Measured, cost: { statements: number; commits: number }) =>
    console.log(row([what, clients, fmt(raw.perSecond, 0), fmt(m.perSecond, 0), fmt(m.perSecond / raw.perSecond, 3), fmt(m.p50ms, 2), fmt(m.p99ms, 2),
      fmt(cost.statements / total, 1), fmt(cost.commits / total, 2)]));
  /** Runs `work`, answering the statements and commits it cost (the projection runner's included). */
  const costed = async <T>(work: () => Promise<T>) => {
    // pg_stat_database is refreshed at most once per transaction snapshot: clear it to read fresh numbers.
    await pool.query('SELECT pg_stat_clear_snapshot()');
    const s0 = statements;
    const c0 = await commits(pool, apiDb);
    const result = await work();
    await new Promise((r) => setTimeout(r, 600));
    await pool.query('SELECT pg_stat_clear_snapshot()');
    return { result, cost: { statements: statements - s0, commits: (await commits(pool, apiDb)) - c0 } };
  };

  console.log('\nRecords API over HTTP vs raw PostgreSQL single-row INSERT (same server, same concurrency)');
  console.log(row(['op', 'clients', 'raw ops/s', 'api ops/s', 'ratio', 'api p50 ms', 'api p99 ms', 'stmts/op', 'commits/op']));
  let run = 0;
  try {
  for (const clients of [1, 8, 32]) {
    run++;
    const raw = await measure(clients, total, async (c) => {
      await pool.query('INSERT INTO bench_raw (stream, data) VALUES ($1, $2)', [`raw-${c}`, JSON.stringify(body)]);
    });
    const written: string[][] = Array.from({ length: clients }, () => []);
    const puts = await costed(() => measure(clients, total, async (c, i) => {
      const key = `r${run}-${i}`;
      await rec(c, { op: 'put', scope: `project:c${run}-${c}`, record_key: key, body, expect: 0 });
      written[c]!.push(key);
    }));
    line('put', clients, raw, puts.result, puts.cost);
    const gets = await costed(() => measure(clients, total, async (c, i) => {
      const mine = written[c]!.length > 0 ? c : written.findIndex((w) => w.length > 0);
      const key = written[mine]![i % written[mine]!.length]!;
      await rec(c, { op: 'get', scope: `project:c${run}-${mine}`, record_key: key });
    }));
    line('get', clients, raw, gets.result, gets.cost);
  }
  } finally {
    await svc.close();
  }
};
