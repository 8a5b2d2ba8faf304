import { performance } from 'node:perf_hooks';
import { startApi, newServiceKeys, JOB, type Api } from '../api.ts';
import { median, printCurve, type Curve } from './table.ts';

const call = async (api: Api, key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${api.svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status} ${answer.slice(0, 120)}`);
};
const timed = async (work: () => Promise<unknown>) => {
  const t = performance.now();
  await work();
  return performance.now() - t;
};

/**
 * One agent's records collection grown to each size (8 writers), then a put and a query
 * timed, warm; and the first query and put of three fresh instances (each warmed on another
 * agent first), cold.
 */
export const benchAgentGrowth = async (url: string, sizes: readonly number[], window = 10): Promise<Curve[]> => {
  const keys = newServiceKeys();
  let api = await startApi(url, keys);
  const key = ((await api.admin(`/v1/tenants/${JOB.tenant}/agent-keys`, { agent: 'grower' })) as { key: string }).key;
  const declared = { collections: { questions: { people: ['buyer'], fields: ['status', 'listing'] } } };
  await call(api, key, 'PUT', '/v1/agent/collections', declared);
  // Another agent a fresh instance is warmed on first, so a cold figure is this agent's load alone.
  const warmer = ((await api.admin(`/v1/tenants/${JOB.tenant}/agent-keys`, { agent: 'warmer' })) as { key: string }).key;
  await call(api, warmer, 'PUT', '/v1/agent/collections', declared);
  const value = (i: number) => ({
    buyer: `phone:+1555${String(1_000_000 + (i % 5_000))}`,
    status: i % 10 === 0 ? 'answered' : 'waiting',
    listing: `bike-${i % 200}`,
  });
  const put = (id: string, i: number) => call(api, key, 'PUT', `/v1/agent/records/questions/${id}`, { value: value(i) });
  // One record answered at every size (a listing the first 100 records already hold, limit 1):
  // the answer's size stays the same, so the curve is the history's cost, not the page's (each
  // record answered is opened with its data key, one keystore read each on a cold instance).
  const query = (i: number) => call(api, key, 'POST', '/v1/agent/records/questions/query', { where: { listing: `bike-${i % 100}` }, limit: 1 });
  const puts: [number, number, number | null][] = [];
  const queries: [number, number, number | null][] = [];
  let filled = 0;
  try {
    for (const n of sizes) {
      // The agent holds n records after this size's window and cold puts (10,000 is the cap).
      const target = n - window - 3 * (1 + puts.length);
      let next = filled;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = next++; i < target; i = next++) await put(`q${i}`, i);
        }),
      );
      filled = Math.max(filled, target);
      // The projections (the audit log's among them, which lags on purpose) take in the growth
      // before the window is timed: the curve is a put's cost at this size, not a catch-up's.
      await api.svc.runner.catchUp();
      const p: number[] = [];
      for (let i = 0; i < window; i++) p.push(await timed(() => put(`q${filled + i}`, filled + i)));
      filled += window;
      const q: number[] = [];
      for (let i = 0; i < window; i++) q.push(await timed(() => query(i)));
      // Cold: the first query and put of each of three fresh instances (median; one sample is mostly noise).
      const coldQueries: number[] = [];
      const coldPuts: number[] = [];
      for (let r = 0; r < 3; r++) {
        await api.close();
        api = await startApi(url, keys, true);
        await call(api, warmer, 'PUT', `/v1/agent/records/questions/w${n}-${r}`, { value: value(r) });
        await call(api, warmer, 'POST', '/v1/agent/records/questions/query', { where: { listing: `bike-${r}` }, limit: 1 });
        coldQueries.push(await timed(() => query(n + r)));
        coldPuts.push(await timed(() => put(`cold-${n}-${r}`, n + r)));
      }
      puts.push([n, median(p), median(coldPuts)]);
      queries.push([n, median(q), median(coldQueries)]);
    }
  } finally {
    await api.close();
  }
  const curves: Curve[] = [
    { stream: "an agent's records", operation: 'put a record', points: puts },
    { stream: "an agent's records", operation: 'query (one record of one of 100 listings)', points: queries },
  ];
  curves.forEach(printCurve);
  return curves;
};
