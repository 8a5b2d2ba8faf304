import pg from 'pg';
import { performance } from 'node:perf_hooks';
import { startService, type Service } from '../adapters/service.ts';
import { ADMIN, JOB, mintWith, newServiceKeys, provision, type BenchJob, type Json } from './api.ts';
import { fmt, measure, reportFailures, row, type Measured } from './harness.ts';

const CLIENTS = 8;
const TENANTS = 6;

const adminOf = (url: string) => async (path: string, body: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Json;
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
};

/** Puts over `clients` loops, each on its tenant's own scope, with tickets minted before the timed phase. */
export const puts = async (url: string, jobs: readonly BenchJob[], total: number, clients = CLIENTS, keyOf = (i: number) => `k-${i}`) => {
  const admin = adminOf(url);
  const per = Math.ceil(total / clients / 64) + 1;
  const tickets = await Promise.all(
    Array.from({ length: clients }, (_, c) => Promise.all(Array.from({ length: per }, () => mintWith(admin, jobs[c % jobs.length]!)))),
  );
  const used = tickets.map(() => 0);
  const body = { note: 'x'.repeat(200) };
  return measure(clients, total, async (c, i) => {
    if (used[c]! >= 64) {
      tickets[c]!.shift();
      used[c] = 0;
    }
    if (tickets[c]!.length === 0) tickets[c]!.push(await mintWith(admin, jobs[c % jobs.length]!));
    used[c]!++;
    const res = await fetch(`${url}/v1/records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tickets[c]![0]!}`, 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'put', scope: 'tenant', record_key: keyOf(i), body, expect: 0 }),
    });
    const answer = (await res.json()) as Json;
    if (res.status !== 200) throw new Error(`${res.status} ${String(answer.error)}`);
  });
};

const jobsOf = (n: number, prefix: string): BenchJob[] => Array.from({ length: n }, (_, i) => ({ ...JOB, tenant: `${prefix}${i}` }));

/**
 * Tenants on 1, 2 and 3 databases: puts/s and p99 at the same load (8 clients over 6 tenants)
 * on one database with no router, then through the router on 1, 2 and 3 databases, the four
 * running side by side and measured in turn for `rounds` rounds (a shared machine drifts: taking
 * them in turn spreads the drift over all); each row is the median round. Then a move of a
 * tenant of `moveRecords` records: how long it took and how long its writes paused. The
 * databases are databases of one server on this machine: the rows show what routing costs, not
 * what separate servers would add.
 */
export const benchShards = async (freshDatabase: (name: string) => Promise<string>, total: number, moveRecords: number, rounds = 3) => {
  console.log(`\n== Tenants on several databases: ${total} puts a round, ${rounds} rounds, ${CLIENTS} clients over ${TENANTS} tenants ==`);
  console.log(row(['databases', 'router', 'puts/s', 'p50 ms', 'p99 ms', 'vs 1 db']));
  const keys = newServiceKeys();
  const configs = [
    [1, false],
    [1, true],
    [2, true],
    [3, true],
  ] as const;
  const services: Service[] = [];
  try {
    for (const [n, routed] of configs) {
      const tag = `${n}${routed ? 'r' : 'p'}`;
      const control = await freshDatabase(`bench_shards_control_${tag}`);
      const databases = routed
        ? await Promise.all(Array.from({ length: n }, async (_, i) => ({ name: `db${i + 1}`, url: await freshDatabase(`bench_shards_${tag}_${i + 1}`) })))
        : [];
      const svc = await startService({ databaseUrl: control, databases, adminKey: ADMIN, ...keys, port: 0 });
      services.push(svc);
      for (const job of jobsOf(TENANTS, 't-')) await provision(adminOf(svc.url), job);
    }
    const results = configs.map(() => [] as Measured[]);
    for (let round = 0; round < rounds; round++)
      for (const [c, svc] of services.entries()) results[c]!.push(await puts(svc.url, jobsOf(TENANTS, 't-'), total, CLIENTS, (i) => `r${round}-${i}`));
    const median = (ms: Measured[]) => [...ms].sort((x, y) => x.perSecond - y.perSecond)[Math.floor(ms.length / 2)]!;
    const base = median(results[0]!).perSecond;
    for (const [c, [n, routed]] of configs.entries()) {
      const m = median(results[c]!);
      console.log(row([n, routed ? 'yes' : 'no', fmt(m.perSecond, 0), fmt(m.p50ms), fmt(m.p99ms), fmt(m.perSecond / base, 3)]));
      for (const r of results[c]!) reportFailures(`${n} databases`, r);
    }
  } finally {
    for (const svc of services) await svc.close();
  }

  const control = await freshDatabase('bench_move_control');
  const databases = [
    { name: 'db1', url: await freshDatabase('bench_move_1') },
    { name: 'db2', url: await freshDatabase('bench_move_2') },
  ];
  const svc = await startService({ databaseUrl: control, databases, adminKey: ADMIN, ...keys, port: 0 });
  try {
    const job = { ...JOB, tenant: 'moved' };
    await provision(adminOf(svc.url), job);
    const filled = await puts(svc.url, [job], moveRecords);
    reportFailures('filling the moved tenant', filled);
    const target = new pg.Client({ connectionString: databases[1]!.url });
    await target.connect();
    const size = async () => Number((await target.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
    const empty = await size();
    const started = performance.now();
    const moved = await adminOf(svc.url)('/v1/tenants/moved/move', { to: 'db2' });
    const ms = performance.now() - started;
    console.log(
      `  move of a tenant of ${filled.ops} records (${String(moved.events)} events, audit size ${String((moved.audit as Json).size)}): ` +
        `${fmt(ms, 0)} ms in all, writes paused ${String(moved.paused_ms)} ms (of which the TTL and grace: ${Number(process.env.CUSTODIAN_PLACEMENT_TTL_MS ?? 1000) + Number(process.env.CUSTODIAN_MOVE_GRACE_MS ?? 2000)} ms)`,
    );
    // What one tenant costs a database: its whole state (log, keys, read models, audit lines and
    // tree) as the move wrote it, once the target's runner has built the rest.
    const audited = Number((moved.audit as Json).size);
    for (let i = 0; i < 600; i++) {
      const { rows } = await target.query(`SELECT coalesce((SELECT size FROM rm_audit_heads WHERE tenant = 'moved'), 0) AS n`);
      if (Number(rows[0].n) >= audited) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await target.query('VACUUM ANALYZE');
    const bytes = (await size()) - empty;
    const events = Number(moved.events);
    console.log(
      `  the moved tenant's footprint in its new database: ${fmt(bytes / 1024 / 1024, 1)} MiB for ${events} events = ${fmt(bytes / events, 0)} bytes an event ` +
        `(log, keys, read models, audit lines and tree), ${fmt(bytes / filled.ops, 0)} bytes a record of this shape`,
    );
    await target.end();
  } finally {
    await svc.close();
  }
};
