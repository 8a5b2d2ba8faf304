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
 * timed, warm; and the first put and query of a fresh instance, cold.
 */
export const benchAgentGrowth = async (url: string, sizes: readonly number[], window = 10): Promise<Curve[]> => {
  const keys = newServiceKeys();
  let api = await startApi(url, keys);
  const key = ((await api.admin(`/v1/tenants/${JOB.tenant}/agent-keys`, { agent: 'grower' })) as { key: string }).key;
  await call(api, key, 'PUT', '/v1/agent/collections', { collections: { questions: { people: ['buyer'], fields: ['status', 'listing'] } } });
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
      // The agent holds n records after this size's window and cold put (10,000 is the cap).
      const target = n - window - 1 - puts.length;
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
      await api.close();
      api = await startApi(url, keys, true);
      const coldQuery = await timed(() => query(n));
      const coldPut = await timed(() => put(`cold-${n}`, n));
      puts.push([n, median(p), coldPut]);
      queries.push([n, median(q), coldQuery]);
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
