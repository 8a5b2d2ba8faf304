import type pg from 'pg';
import { newServiceKeys, type Json } from './api.ts';
import { CLIENTS, failed, measureRaw, RAW_TABLE, type Baselines } from './eventstore.ts';
import { fmt, measure, reportFailures, row, type Measured } from './harness.ts';
import { PER_OP_HEADERS, perOp, type Cost, type PgStats } from './pgstats.ts';
import { startRemoteApi, type RemoteApi } from './remote-service.ts';

/**
 * Tickets minted before a timed phase (64 requests each, a few spare per client), so that no
 * measured request waits for an admin mint (a mint waits for the projections: it would be the
 * phase's p99, not the request's). A client that runs out, or whose ticket is refused, mints.
 */
const preminted = async (api: RemoteApi, clients: number, total: number) => {
  const per = Math.ceil(total / clients / 64) + 1;
  const pools = await Promise.all(Array.from({ length: clients }, () => Promise.all(Array.from({ length: per }, () => api.mint()))));
  const used = pools.map(() => 0);
  const next = async (c: number) => {
    if (used[c]! >= 64) {
      pools[c]!.shift();
      used[c] = 0;
    }
    if (pools[c]!.length === 0) pools[c]!.push(await api.mint());
    used[c]!++;
    return pools[c]![0]!;
  };
  const http = api.records(clients);
  const rec = async (c: number, body: Json) => {
    const ticket = await next(c);
    try {
      return await http.recWith(ticket, body);
    } catch (error) {
      if (pools[c]![0] === ticket) {
        pools[c]!.shift();
        used[c] = 0;
      }
      throw error;
    }
  };
  return { rec, done: http.done };
};

/** A phase of the service: its database cost and the service process's own CPU time. */
const servicePhase = async (api: RemoteApi, stats: PgStats, database: string) => {
  const phase = await stats.begin(database);
  const cpu = await api.cpuMs();
  return {
    async end(): Promise<{ cost: Cost; serviceCpuMs: number }> {
      const serviceCpuMs = (await api.cpuMs()) - cpu;
      return { cost: await phase.end(), serviceCpuMs };
    },
  };
};

/**
 * Records put and audited get over HTTP against raw single-row INSERTs on the same server, at
 * the same concurrency, in the same run, and against Emmett's append from the event-store
 * section. Each client writes its own scope (its own stream), as separate plugins' and agents'
 * scopes would. A failed request is counted by its refusal and printed, never fatal. The
 * service runs in a child process, the clients here (`bench/remote-service.ts`): `bench ms/op`
 * is the clients' CPU, `svc ms/op` the service's.
 */
export const benchRecords = async (pool: pg.Pool, database: string, apiUrl: string, stats: PgStats, total: number, baselines: Baselines) => {
  await pool.query(RAW_TABLE);
  const api = await startRemoteApi(apiUrl, newServiceKeys());
  const apiDb = new URL(apiUrl).pathname.slice(1);
  stats.track(api.flush, apiDb);
  const body = { note: 'x'.repeat(200), n: 1 };
  const emmettRatio = (clients: number, m: Measured) => {
    const e = baselines.emmett.get(clients);
    return e ? fmt(m.perSecond / e.perSecond, 3) : 'n/a';
  };
  const line = (what: string, clients: number, raw: Measured, m: Measured, cost: Cost, serviceCpuMs?: number) =>
    console.log(
      row([
        what,
        clients,
        fmt(m.perSecond, 0),
        fmt(m.perSecond / raw.perSecond, 3),
        emmettRatio(clients, m),
        fmt(m.p50ms, 2),
        fmt(m.p99ms, 2),
        failed(m),
        ...perOp(cost, m.ops + failed(m)),
        serviceCpuMs === undefined ? '-' : fmt(serviceCpuMs / Math.max(m.ops + failed(m), 1), 3),
      ]),
    );

  console.log('\nRecords API over HTTP vs raw PostgreSQL single-row INSERT (same server, same concurrency) and Emmett appendToStream');
  if (baselines.emmett.size === 0) console.log(`  (x emmett: ${baselines.emmettUnavailable ?? 'run with BENCH_ONLY including eventstore'})`);
  console.log("  (service in a child process, clients here over node:http: bench ms/op is the clients' CPU, svc ms/op the service process's)");
  console.log(row(['op', 'clients', 'ops/s', 'x raw', 'x emmett', 'p50 ms', 'p99 ms', 'failed', ...PER_OP_HEADERS.slice(0, -1), 'bench ms/op', 'svc ms/op']));
  let run = 0;
  try {
    for (const clients of CLIENTS) {
      run++;
      const phase = await stats.begin(database);
      const raw = await measureRaw(pool, clients, total);
      line('raw insert', clients, raw, raw, await phase.end());
      const written: string[][] = Array.from({ length: clients }, () => []);
      let { rec, done } = await preminted(api, clients, total);
      let svc = await servicePhase(api, stats, apiDb);
      const puts = await measure(clients, total, async (c, i) => {
        const key = `r${run}-${i}`;
        await rec(c, { op: 'put', scope: `project:c${run}-${c}`, record_key: key, body, expect: 0 });
        written[c]!.push(key);
      });
      let ended = await svc.end();
      done();
      line('put', clients, raw, puts, ended.cost, ended.serviceCpuMs);
      reportFailures(`put ×${clients}`, puts);
      const mine = (c: number) => (written[c]!.length > 0 ? c : written.findIndex((w) => w.length > 0));
      if (mine(0) < 0) {
        console.log(`  !! no put succeeded at ${clients} clients: audited gets skipped`);
        continue;
      }
      ({ rec, done } = await preminted(api, clients, total));
      svc = await servicePhase(api, stats, apiDb);
      const gets = await measure(clients, total, async (c, i) => {
        const m = mine(c);
        const key = written[m]![i % written[m]!.length]!;
        await rec(c, { op: 'get', scope: `project:c${run}-${m}`, record_key: key });
      });
      ended = await svc.end();
      done();
      line('get', clients, raw, gets, ended.cost, ended.serviceCpuMs);
      reportFailures(`get ×${clients}`, gets);
    }
  } finally {
    stats.untrack(api.flush);
    await api.close();
  }
};
