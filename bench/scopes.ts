import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { newServiceKeys, provision, mintWith, refusalText, type BenchJob, type Json } from './api.ts';
import { forkChild } from './child-ipc.ts';
import { RAW_TABLE } from './eventstore.ts';
import { measure, measureFor, reportFailures, type Measured } from './harness.ts';
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
 * client (`project:c<n>`), at 8 and 32 clients; and at 8 clients gets of records that exist,
 * Emmett's (`aggregateStream` over the record's stream) beside Custodian's audited get (each
 * appends a read audit). Each phase runs `BENCH_SECONDS` seconds;
 * `BENCH_SCOPES_PASSES` passes (default 2) run the rows in alternating order, after each HTTP
 * service is warmed for `BENCH_SCOPES_WARMUP_S` seconds (default 2, untimed); the table shows
 * medians.
 */
const BODY = { note: 'x'.repeat(200), n: 1 };
const WARMUP_S = Number(process.env.BENCH_SCOPES_WARMUP_S ?? 2);
const SETTLE_MS = 1000;
/** Records each client's scope holds for a get phase, put before it (untimed). */
const GET_KEYS = Number(process.env.BENCH_SCOPES_GET_KEYS ?? 50);

type Kind = 'raw' | 'insert' | 'emmett' | 'shared' | 'own' | 'emmett-get' | 'get';
const isGet = (kind: Kind) => kind === 'emmett-get' || kind === 'get';
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
  { id: 'emmetget', label: "fastify + Emmett get (aggregate the record's stream)", kind: 'emmett-get', clients: 8 },
  { id: 'get', label: 'Custodian audited get (records API `get` through a ticket, which appends a read audit)', kind: 'get', clients: 8 },
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

/** A get answered 200 with the record (a 200 without one is a failure too: every key got was put). */
const gotRecord = (status: number, answer: Json) => {
  if (status !== 200 || typeof answer.record !== 'object' || answer.record === null) throw new Error(refusalText('get', status, answer));
};

/**
 * Before a get phase (untimed): `GET_KEYS` records in each client's scope (`project:c<n>`, keys
 * `g<k>`), put through the service the phase reads; its failures printed like a phase's.
 */
const seed = async (row: Row, put: (client: number, scope: string, key: string) => Promise<unknown>) => {
  const m = await measure(row.clients, row.clients * GET_KEYS, (c, i) =>
    put(c, `project:c${i % row.clients}`, `g${Math.floor(i / row.clients)}`).then(() => undefined),
  );
  reportFailures(`seeding ${row.id} ×${row.clients}`, m);
  // The puts' background work (the service's projection runner) out of the get phase's figures.
  await sleep(SETTLE_MS);
};

/** Each client's next key in its own scope, round-robin over the keys seeded. */
const roundRobin = (clients: number) => {
  const next = new Array<number>(clients).fill(0);
  return (c: number) => `g${next[c]!++ % GET_KEYS}`;
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
      if (row.kind === 'insert' || row.kind === 'emmett' || row.kind === 'emmett-get') {
        const agent = httpClients(row.clients);
        const put = putter(agent, `${baseUrl}/${row.kind === 'insert' ? 'insert' : 'emmett'}/v1/records`, 'none');
        const cpuMs = () => baseline.call<number>({ op: 'cpu' });
        const done = () => agent.destroy();
        if (row.kind !== 'emmett-get')
          return { op: (c, i) => put({ op: 'put', scope: `project:c${c}`, record_key: `${tag}-${i}`, body: BODY, expect: 0 }), cpuMs, done };
        await seed(row, (_, scope, key) => put({ op: 'put', scope, record_key: `${tag}-${key}`, body: BODY, expect: 0 }));
        const keyOf = roundRobin(row.clients);
        return {
          op: async (c) => {
            const { status, answer } = await post(agent, `${baseUrl}/emmett/v1/records/get`, 'none', {
              op: 'get',
              scope: `project:c${c}`,
              record_key: `${tag}-${keyOf(c)}`,
            });
            gotRecord(status, answer);
          },
          cpuMs,
          done,
        };
      }
      // Each Custodian phase on a tenant of its own: every phase starts from empty scopes (the
      // 20,000 bound and the shared scope's count are the phase's alone).
      const job: BenchJob = { tenant: `scopes-${tag}`, plugin: 'notes', job: 'bench-job' };
      await provision(custodian.admin, job);
      // Enough tickets for the rate this row (or, before its first pass, its 8-client warm-up) reached, and a margin.
      const expected =
        rates.get(row.id) ?? rates.get(ROWS.find((r) => r.kind === row.kind && r.clients === 8)?.id ?? '') ?? Number(process.env.BENCH_SCOPES_RATE ?? 1000);
      const seeded = isGet(row.kind) ? row.clients * GET_KEYS : 0;
      const tickets: Tickets = await mintTickets(() => mintWith(custodian.admin, job), row.clients, Math.ceil(expected * seconds * 1.3) + seeded);
      const agent = httpClients(row.clients);
      // A records request with the client's ticket; a refused one drops the ticket.
      const request = async (c: number, body: Json) => {
        const ticket = await tickets.take(c);
        const { status, answer } = await post(agent, `${custodian.url}/v1/records`, ticket, body);
        if (status !== 200) {
          tickets.refused(c, ticket);
          throw new Error(refusalText(String(body.op), status, answer));
        }
        return answer;
      };
      if (row.kind === 'get') {
        await seed(row, (c, scope, key) => request(c, { op: 'put', scope, record_key: key, body: BODY, expect: 0 }));
        const keyOf = roundRobin(row.clients);
        return {
          op: async (c) => gotRecord(200, await request(c, { op: 'get', scope: `project:c${c}`, record_key: keyOf(c) })),
          cpuMs: () => custodian.cpuMs(),
          done: () => agent.destroy(),
          inlineMints: () => tickets.inlineMints(),
        };
      }
      const scopeOf = (c: number) => (row.kind === 'shared' ? 'tenant' : `project:c${c}`);
      return {
        op: async (c, i) => {
          await request(c, { op: 'put', scope: scopeOf(c), record_key: `k${i}`, body: BODY, expect: 0 });
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
      const database = dbOf(row.kind === 'emmett' || row.kind === 'emmett-get' ? emmettUrl : row.kind === 'raw' || row.kind === 'insert' ? sqlUrl : apiUrl);
      const pg0 = postgresCpuMs(database);
      const svc0 = await prepared.cpuMs?.();
      const m: Measured = await measureFor(row.clients, seconds, prepared.op);
      const svc1 = await prepared.cpuMs?.();
      const pgMs = postgresCpuMs(database) - pg0;
      prepared.done();
      const ops = m.ops + [...m.failures.values()].reduce((a, b) => a + b, 0);
      const result: PhaseResult = {
        perSecond: m.perSecond,
        p50ms: m.p50ms,
        p99ms: m.p99ms,
        serviceMsPerOp: svc0 === undefined || svc1 === undefined ? null : (svc1 - svc0) / Math.max(ops, 1),
        pgMsPerOp: pgMs / Math.max(ops, 1),
      };
      rates.set(row.id, Math.max(rates.get(row.id) ?? 0, m.perSecond));
      const mints = prepared.inlineMints?.() ?? 0;
      const op = isGet(row.kind) ? 'get' : 'put';
      console.log(
        `  pass ${pass} ${row.id.padEnd(8)} ×${row.clients}: ${m.ops} ${op}s in ${m.seconds.toFixed(1)} s = ${m.perSecond.toFixed(0)}/s, p50 ${m.p50ms.toFixed(1)} ms, p99 ${m.p99ms.toFixed(1)} ms` +
          (result.serviceMsPerOp === null ? '' : `, service ${result.serviceMsPerOp.toFixed(2)} ms/${op}`) +
          `, PostgreSQL ${result.pgMsPerOp.toFixed(2)} ms/${op}${mints ? `, ${mints} tickets minted during the phase` : ''}`,
      );
      reportFailures(`${row.id} ×${row.clients} pass ${pass}`, m);
      if (prepared.check) {
        const line = `pass ${pass}, ${row.label} ×${row.clients}: ${await prepared.check(m.ops)}`;
        console.log(`    check: ${line}`);
        checks.push(line);
      }
      results.set(row.id, [...(results.get(row.id) ?? []), result]);
    };

    console.log(
      `\nOne scope, many clients: new-record puts, and gets of ${GET_KEYS} records a client put before the phase, ${seconds} s a phase, ${passes} passes in alternating order (medians)`,
    );
    console.log('  (every service in a child process of its own; clients here over keep-alive node:http; tickets minted before each phase)');
    for (const row of ROWS.filter((r) => r.clients === 8 && r.kind !== 'raw')) await warmUp(row);
    for (let pass = 1; pass <= passes; pass++) {
      const order = pass % 2 === 1 ? ROWS : [...ROWS].reverse();
      for (const row of order) await runPhase(row, pass);
    }
    // A put's ratio is against Emmett's put, a get's against Emmett's get, at the same client count.
    const emmettAt = (kind: Kind, clients: number) => median(results.get(ROWS.find((r) => r.kind === kind && r.clients === clients)?.id ?? '') ?? []).perSecond;
    const table = markdownTable(
      ROWS.map((row) => ({
        ...row,
        median: median(results.get(row.id) ?? []),
        base: emmettAt(isGet(row.kind) ? 'emmett-get' : 'emmett', row.clients),
        ...(isGet(row.kind) ? { against: 'get' } : {}),
      })),
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
