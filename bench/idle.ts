import { setTimeout as sleep } from 'node:timers/promises';
import { startApi, newServiceKeys } from './api.ts';
import { fmt } from './harness.ts';
import type { PgStats } from './pgstats.ts';

const IDLE_S = 10;

/**
 * The service started, a little history behind it, then nothing happening for 10 s: commits
 * in its database, WAL flushes (whole cluster) and this process's CPU time over those 10 s.
 */
export const benchIdle = async (url: string, stats: PgStats) => {
  const api = await startApi(url, newServiceKeys());
  const database = new URL(url).pathname.slice(1);
  stats.track(api.svc.pool, database);
  try {
    await api.rec(0, { op: 'put', scope: 'project:idle', record_key: 'k', body: { n: 1 }, expect: 0 });
    await api.svc.runner.catchUp();
    await sleep(1000);
    const phase = await stats.begin(database);
    await sleep(IDLE_S * 1000);
    const cost = await phase.end();
    const stmts = Number.isFinite(cost.statements) ? `, ${cost.statements + cost.control} statements (${cost.control} BEGIN/COMMIT)` : '';
    console.log(
      `\nIdle service over ${IDLE_S} s: ${cost.commits} commits, ${cost.walSyncs} WAL flushes (${cost.walWrites} WAL writes)${stmts}, ${fmt(cost.cpuMs, 0)} ms Node CPU (${fmt(cost.cpuMs / IDLE_S, 1)} ms/s)`,
    );
  } finally {
    stats.untrack(api.svc.pool);
    await api.close();
  }
};
