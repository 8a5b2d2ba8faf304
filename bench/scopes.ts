import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { newServiceKeys, provision, mintWith, refusalText, type BenchJob, type Json } from './api.ts';
import { forkChild } from './child-ipc.ts';
import { RAW_TABLE } from './eventstore.ts';
import { measureFor, reportFailures, type Measured } from './harness.ts';
import { postgresCpuMs } from './pg-cpu.ts';
import { post, startRemoteApi, type RemoteApi } from './remote-service.ts';
import { mintTickets, type Tickets } from './scope-tickets.ts';
import { countReadable } from './scope-check.ts';
import { markdownTable, median, type PhaseResult } from './scope-table.ts';

/**
 * `BENCH_ONLY=scopes`: new-record puts as users make them (keep-alive `node:http` clients in
 * this process, tickets minted before each phase, every service in a child process of its
 * own), Custodian beside what a user could build instead on the same PostgreSQL in the same
 * run. Custodian with all clients in one scope (`tenant`: one stream) and with one scope per
 * client (`project:c<n>`), at 8 and 32 clients. Each phase runs `BENCH_SECONDS` seconds;
 * `BENCH_SCOPES_PASSES` passes (default 2) run the rows in alternating order, after each HTTP
 * service is warmed for `BENCH_SCOPES_WARMUP_S` seconds (default 2, untimed); the table shows
 * medians.
 */
const BODY = { note: 'x'.repeat(200), n: 1 };
const WARMUP_S = Number(process.env.BENCH_SCOPES_WARMUP_S ?? 2);
const SETTLE_MS = 1000;

type Kind = 'raw' | 'insert' | 'emmett' | 'shared' | 'own';
interface Row {
  readonly id: string;
  readonly label: string;
  readonly kind: Kind;
  readonly clients: number;
}
export const ROWS: readonly Row[] = [
  { id: 'raw', label: 'raw INSERT (no HTTP)', kind: 'raw', clients: 8 },
  { id: 'insert', label: 'fastify + one pooled INSERT per POST', kind: 'insert', clients: 8 },
  { id: 'emmett', label: "fastify + Emmett's PostgreSQL event store, `CommandHandler` (read the record's stream, decide, append)", kind: 'emmett', clients: 8 },
  { id: 'shared', label: 'Custodian, one scope for all clients (`tenant`)', kind: 'shared', clients: 8 },
  { id: 'own', label: 'Custodian, one scope per client (`project:c<n>`)', kind: 'own', clients: 8 },
  { id: 'emmett32', label: 'fastify + Emmett `CommandHandler`', kind: 'emmett', clients: 32 },
  { id: 'shared32', label: 'Custodian, one scope for all clients (`tenant`)', kind: 'shared', clients: 32 },
  { id: 'own32', label: 'Custodian, one scope per client (`project:c<n>`)', kind: 'own', clients: 32 },
];

/** What one phase needs, made before its clock starts. */
interface Prepared {
  op(client: number, i: number): Promise<void>;
  /** The serving process's CPU so far, ms; none for the raw row (no service). */
  cpuMs?: () => Promise<number>;
  /** After the phase: records readable against 200 answers (Custodian rows). */
  check?: (answered: number) => Promise<string>;
  done(): void;
  readonly inlineMints?: () => number;
}

const httpClients = (clients: number) => new http.Agent({ keepAlive: true, maxSockets: clients });

const putter = (agent: http.Agent, url: string, token: string) => async (body: Json) => {
  const { status, answer } = await post(agent, url, token, body);
  if (status !== 200) throw new Error(refusalText('put', status, answer));
};

export const benchScopes = async (fresh: (name: string) => Promise<string>, seconds: number, passes: number) => {
  const sqlUrl = await fresh('bench_scopes_sql');
  const emmettUrl = await fresh('bench_scopes_emmett');
  const apiUrl = await fresh('bench_scopes_api');
  const dbOf = (u: string) => new URL(u).pathname.slice(1);
  const raw = new pg.Pool({ connectionString: sqlUrl, max: 8 });
  raw.on('error', () => undefined);
  await raw.query(RAW_TABLE);
  const baseline = forkChild(path.join(import.meta.dirname, 'baseline-service.ts'));
  let api: RemoteApi | null = null;
  const results = new Map<string, PhaseResult[]>();
  const checks: string[] = [];
  try {
    const baseUrl = await baseline.call<string>({ op: 'start', sqlUrl, emmettUrl });
    api = await startRemoteApi(apiUrl, newServiceKeys());
    const custodian = api;
    const rates = new Map<string, number>();

    const prepare = async (row: Row, pass: number): Promise<Prepared> => {
      const tag = `${row.id}-p${pass}`;
      if (row.kind === 'raw')
        return {
          op: async (c, i) => {
            await raw.query('INSERT INTO bench_raw (stream, data) VALUES ($1, $2)', [`${tag}/c${c}/${i}`, JSON.stringify(BODY)]);
          },
          done: () => undefined,
        };
      if (row.kind === 'insert' || row.kind === 'emmett') {
        const agent = httpClients(row.clients);
        const put = putter(agent, `${baseUrl}/${row.kind}/v1/records`, 'none');
        return {
          op: (c, i) => put({ op: 'put', scope: `project:c${c}`, record_key: `${tag}-${i}`, body: BODY, expect: 0 }),
          cpuMs: () => baseline.call<number>({ op: 'cpu' }),
          done: () => agent.destroy(),
        };
      }
      // Each Custodian phase on a tenant of its own: every phase starts from empty scopes (the
      // 20,000 bound and the shared scope's count are the phase's alone).
      const job: BenchJob = { tenant: `scopes-${tag}`, plugin: 'notes', job: 'bench-job' };
      await provision(custodian.admin, job);
      // Enough tickets for the rate this row (or, before its first pass, its 8-client warm-up) reached, and a margin.
      const expected =
        rates.get(row.id) ?? rates.get(ROWS.find((r) => r.kind === row.kind && r.clients === 8)?.id ?? '') ?? Number(process.env.BENCH_SCOPES_RATE ?? 1000);
      const tickets: Tickets = await mintTickets(() => mintWith(custodian.admin, job), row.clients, Math.ceil(expected * seconds * 1.3));
      const agent = httpClients(row.clients);
      const scopeOf = (c: number) => (row.kind === 'shared' ? 'tenant' : `project:c${c}`);
      return {
        op: async (c, i) => {
          const ticket = await tickets.take(c);
          const { status, answer } = await post(agent, `${custodian.url}/v1/records`, ticket, {
            op: 'put',
            scope: scopeOf(c),
            record_key: `k${i}`,
            body: BODY,
            expect: 0,
          });
          if (status !== 200) {
            tickets.refused(c, ticket);
            throw new Error(refusalText('put', status, answer));
          }
        },
        cpuMs: () => custodian.cpuMs(),
        check: async (answered) => {
          const scopes = row.kind === 'shared' ? ['tenant'] : Array.from({ length: row.clients }, (_, c) => scopeOf(c));
          const readable = await countReadable(
            () => mintWith(custodian.admin, job),
            (ticket, body) => post(agent, `${custodian.url}/v1/records`, ticket, body),
            scopes,
          );
          const verdict = readable.records === answered && readable.withheld === 0 ? 'equal' : '!! NOT EQUAL';
          return `${readable.records} readable in ${row.kind === 'shared' ? 'the scope' : `the ${scopes.length} scopes`}, ${answered} answered 200${readable.withheld ? `, ${readable.withheld} withheld` : ''}: ${verdict}`;
        },
        done: () => agent.destroy(),
        inlineMints: () => tickets.inlineMints(),
      };
    };

    // Each service warmed (JIT, pools, caches) before any figure, so the first timed phase is not its first work.
    const warmUp = async (row: Row) => {
      const prepared = await prepare(row, 0);
      const m = await measureFor(row.clients, WARMUP_S, prepared.op);
      prepared.done();
      rates.set(row.id, m.perSecond);
      reportFailures(`warm-up ${row.id}`, m);
    };

    const runPhase = async (row: Row, pass: number) => {
      // The previous phase's background work (the service's projection runner) out of this one's figures.
      await sleep(SETTLE_MS);
      const prepared = await prepare(row, pass);
      const database = dbOf(row.kind === 'emmett' ? emmettUrl : row.kind === 'raw' || row.kind === 'insert' ? sqlUrl : apiUrl);
      const pg0 = postgresCpuMs(database);
      const svc0 = await prepared.cpuMs?.();
      const m: Measured = await measureFor(row.clients, seconds, prepared.op);
      const svc1 = await prepared.cpuMs?.();
      const pgMs = postgresCpuMs(database) - pg0;
      prepared.done();
      const puts = m.ops + [...m.failures.values()].reduce((a, b) => a + b, 0);
      const result: PhaseResult = {
        perSecond: m.perSecond,
        p50ms: m.p50ms,
        p99ms: m.p99ms,
        serviceMsPerPut: svc0 === undefined || svc1 === undefined ? null : (svc1 - svc0) / Math.max(puts, 1),
        pgMsPerPut: pgMs / Math.max(puts, 1),
      };
      rates.set(row.id, Math.max(rates.get(row.id) ?? 0, m.perSecond));
      const mints = prepared.inlineMints?.() ?? 0;
      console.log(
        `  pass ${pass} ${row.id.padEnd(8)} ×${row.clients}: ${m.ops} puts in ${m.seconds.toFixed(1)} s = ${m.perSecond.toFixed(0)}/s, p50 ${m.p50ms.toFixed(1)} ms, p99 ${m.p99ms.toFixed(1)} ms` +
          (result.serviceMsPerPut === null ? '' : `, service ${result.serviceMsPerPut.toFixed(2)} ms/put`) +
          `, PostgreSQL ${result.pgMsPerPut.toFixed(2)} ms/put${mints ? `, ${mints} tickets minted during the phase` : ''}`,
      );
      reportFailures(`${row.id} ×${row.clients} pass ${pass}`, m);
      if (prepared.check) {
        const line = `pass ${pass}, ${row.label} ×${row.clients}: ${await prepared.check(m.ops)}`;
        console.log(`    check: ${line}`);
        checks.push(line);
      }
      results.set(row.id, [...(results.get(row.id) ?? []), result]);
    };

    console.log(`\nOne scope, many clients: new-record puts, ${seconds} s a phase, ${passes} passes in alternating order (medians)`);
    console.log('  (every service in a child process of its own; clients here over keep-alive node:http; tickets minted before each phase)');
    for (const row of ROWS.filter((r) => r.clients === 8 && r.kind !== 'raw')) await warmUp(row);
    for (let pass = 1; pass <= passes; pass++) {
      const order = pass % 2 === 1 ? ROWS : [...ROWS].reverse();
      for (const row of order) await runPhase(row, pass);
    }
    const table = markdownTable(
      ROWS.map((row) => ({ ...row, median: median(results.get(row.id) ?? []) })),
      (clients) => median(results.get(ROWS.find((r) => r.kind === 'emmett' && r.clients === clients)?.id ?? '') ?? []).perSecond,
    );
    console.log(`\n${table}`);
    console.log('\nRecords readable after each Custodian phase against its 200 answers (not timed):');
    for (const line of checks) console.log(`- ${line}`);
  } finally {
    await api?.close();
    if (!baseline.exited()) await baseline.call({ op: 'close' }).catch(() => undefined);
    await baseline.stopped('baseline service');
    await raw.end();
  }
};
