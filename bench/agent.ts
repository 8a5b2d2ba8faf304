import type pg from 'pg';
import { startApi, newServiceKeys, JOB } from './api.ts';
import { failed, measureRaw, RAW_TABLE } from './eventstore.ts';
import { elapsedMs, fmt, measure, reportFailures, row, type Measured } from './harness.ts';

const CLIENTS = 8;
const FULL = 10_000;

/**
 * Agent records (SPEC §12) over HTTP beside raw single-row INSERTs on the same server, same
 * concurrency, same run: puts and queries at 8 clients, each its own agent (its own stream),
 * then 8 clients sharing one agent (one stream: puts contend and are decided again). Then one
 * agent filled to the 10,000-record limit, and query latency there.
 */
export const benchAgent = async (pool: pg.Pool, apiUrl: string, total: number) => {
  await pool.query(RAW_TABLE);
  const api = await startApi(apiUrl, newServiceKeys());
  const keyFor = async (agent: string) => ((await api.admin(`/v1/tenants/${JOB.tenant}/agent-keys`, { agent })) as { key: string }).key;
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api.svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${method} ${path.replace(/\/[^/]+$/, '/…')} → ${res.status} ${JSON.stringify(answer).slice(0, 120)}`);
    return answer;
  };
  const declare = (key: string) =>
    call(key, 'PUT', '/v1/agent/collections', { collections: { questions: { people: ['buyer'], fields: ['status', 'listing'] } } });
  const value = (i: number) => ({
    buyer: `phone:+1555${String(1_000_000 + (i % 5_000))}`,
    status: i % 10 === 0 ? 'answered' : 'waiting',
    listing: `bike-${i % 200}`,
    note: 'x'.repeat(200),
  });
  const put = (key: string, id: string, i: number) => call(key, 'PUT', `/v1/agent/records/questions/${id}`, { value: value(i) });
  const query = (key: string, where: Record<string, unknown>) => call(key, 'POST', '/v1/agent/records/questions/query', { where });
  const line = (what: string, m: Measured, raw: Measured) =>
    console.log(row([what, CLIENTS, fmt(m.perSecond, 0), fmt(m.perSecond / raw.perSecond, 3), fmt(m.p50ms, 2), fmt(m.p99ms, 2), failed(m)]));

  try {
    console.log(`\nAgent records over HTTP vs raw PostgreSQL single-row INSERT (same server, ${CLIENTS} clients, ${total} ops a row)`);
    console.log(row(['op', 'clients', 'ops/s', 'x raw', 'p50 ms', 'p99 ms', 'failed']));
    const raw = await measureRaw(pool, CLIENTS, total);
    line('raw insert', raw, raw);
    const own = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => keyFor(`bench-own-${c}`)));
    await Promise.all(own.map(declare));
    const puts = await measure(CLIENTS, total, (c, i) => put(own[c]!, `q${i}`, i).then(() => undefined));
    line('put (own)', puts, raw);
    reportFailures(`agent put ×${CLIENTS}, an agent each`, puts);
    const queries = await measure(CLIENTS, total, (c, i) => query(own[c]!, { listing: `bike-${i % 200}` }).then(() => undefined));
    line('query (own)', queries, raw);
    reportFailures(`agent query ×${CLIENTS}, an agent each`, queries);
    const shared = await keyFor('bench-shared');
    await declare(shared);
    const sharedPuts = await measure(CLIENTS, total, (_, i) => put(shared, `q${i}`, i).then(() => undefined));
    line('put (one)', sharedPuts, raw);
    reportFailures(`agent put ×${CLIENTS}, one agent`, sharedPuts);

    console.log(`\nAgent query latency at ${FULL.toLocaleString('en-US')} records in one agent (1 client)`);
    const full = await keyFor('bench-full');
    await declare(full);
    const started = performance.now();
    const fill = await measure(CLIENTS, FULL, (_, i) => put(full, `q${i}`, i).then(() => undefined));
    reportFailures('filling one agent', fill);
    console.log(
      `  filled ${fill.ops.toLocaleString('en-US')} records in ${fmt(elapsedMs(started) / 1000, 1)} s (${fmt(fill.perSecond, 0)} puts/s at ${CLIENTS} clients)`,
    );
    const over = await put(full, 'one-past', FULL).then(
      () => 'written (!)',
      (e: Error) => e.message,
    );
    console.log(`  a put of one more new record: ${over}`);
    console.log(row(['query', 'hits', 'ops/s', 'p50 ms', 'p99 ms', 'failed']));
    const n = Math.min(total, 500);
    for (const [what, where, hits] of [
      ['one buyer', (i: number) => ({ buyer: `phone:+1555${String(1_000_000 + (i % 5_000))}` }), '2'],
      ['one listing', (i: number) => ({ listing: `bike-${i % 200}` }), '50'],
      ['status', () => ({ status: 'answered' }), '50 (of 1,000)'],
    ] as const) {
      const m = await measure(1, n, (_, i) => query(full, where(i)).then(() => undefined));
      console.log(row([what, hits, fmt(m.perSecond, 0), fmt(m.p50ms, 2), fmt(m.p99ms, 2), failed(m)]));
      reportFailures(`query ${what} at ${FULL}`, m);
    }
  } finally {
    await api.close();
  }
};
