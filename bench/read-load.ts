import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startApi, newServiceKeys } from './api.ts';
import { fmt, measureFor, reportFailures } from './harness.ts';

const CLIENTS = 32;
/** Lag sampling stops here even if a projection never catches up (the bench must end). */
const LAG_CAP_S = 300;
/** A lag that has not moved for this long is reported as stuck. */
const STUCK_S = 60;

/**
 * 32 clients doing audited gets for `seconds`, then an admin mint and a put with its ticket:
 * how long each took, and every projection's lag (the highest committed position minus its checkpoint
 * in custodian_checkpoints) every second until all are 0, timed from the moment the load stopped.
 */
export const benchReadLoad = async (url: string, seconds: number) => {
  const api = await startApi(url, newServiceKeys());
  const watcher = new pg.Client({ connectionString: url });
  watcher.on('error', () => undefined);
  await watcher.connect();
  const lags = async () => {
    // The log's true head: the store's own headPosition stops at pg_snapshot_xmin, which a
    // long projection transaction holds back, and would hide the very lag measured here.
    const h = await watcher.query<{ head: string }>('SELECT coalesce(max(position), 0) AS head FROM custodian_events');
    const head = Number(h.rows[0]!.head);
    const { rows } = await watcher.query<{ name: string; position: string }>('SELECT name, position FROM custodian_checkpoints ORDER BY name');
    return Object.fromEntries(rows.map((r) => [r.name, head - Number(r.position)]));
  };
  const show = (l: Record<string, number>) =>
    Object.entries(l)
      .map(([n, v]) => `${n}=${v}`)
      .join(' ');
  try {
    const body = { note: 'x'.repeat(200), n: 1 };
    for (let c = 0; c < CLIENTS; c++) await api.rec(c, { op: 'put', scope: `project:load-${c}`, record_key: 'k', body, expect: 0 });
    await api.svc.runner.catchUp();
    console.log(`\nRead load: ${CLIENTS} clients doing audited gets for ${seconds} s, then an admin mint and a put with its ticket`);
    let loading = true;
    const ticker = (async () => {
      const started = performance.now();
      while (loading) {
        await sleep(5000);
        if (loading) console.log(`  load +${fmt((performance.now() - started) / 1000, 0)}s  lag: ${show(await lags())}`);
      }
    })();
    const gets = await measureFor(CLIENTS, seconds, (c) => api.rec(c, { op: 'get', scope: `project:load-${c}`, record_key: 'k' }).then(() => undefined));
    loading = false;
    const stopped = performance.now();
    console.log(`  gets: ${fmt(gets.perSecond, 0)}/s, p50 ${fmt(gets.p50ms, 2)} ms, p99 ${fmt(gets.p99ms, 2)} ms, ${gets.ops} answered`);
    reportFailures(`gets under load`, gets);

    // The admin action runs while the projections drain; lag is sampled beside it.
    const action = (async () => {
      let t = performance.now();
      let ticket: string | null = null;
      try {
        ticket = await api.mint();
        console.log(`  admin mint after the load: answered in ${fmt(performance.now() - t, 0)} ms`);
      } catch (error) {
        console.log(`  !! admin mint after the load FAILED in ${fmt(performance.now() - t, 0)} ms: ${(error as Error).message}`);
      }
      if (ticket === null) return;
      t = performance.now();
      try {
        await api.recWith(ticket, { op: 'put', scope: 'project:after-load', record_key: 'k', body, expect: 0 });
        console.log(`  put with that ticket: answered in ${fmt(performance.now() - t, 0)} ms`);
      } catch (error) {
        console.log(`  !! put with that ticket FAILED in ${fmt(performance.now() - t, 0)} ms: ${(error as Error).message}`);
      }
    })();
    let zeroAt: number | null = null;
    let stuck = false;
    let last = '';
    let lastChange = 0;
    for (let tick = 0; zeroAt === null && !stuck && tick <= LAG_CAP_S; tick++) {
      const l = await lags();
      const since = (performance.now() - stopped) / 1000;
      const shown = show(l);
      if (shown !== last) lastChange = tick;
      // An unchanged line is shown every 10 s only; unchanged for STUCK_S, the projection is stuck.
      if (shown !== last || tick % 10 === 0) console.log(`  +${fmt(since, 1)}s after load  lag: ${shown}${shown === last ? ' (unchanged)' : ''}`);
      last = shown;
      if (Object.values(l).every((v) => v <= 0)) zeroAt = since;
      else if (tick - lastChange >= STUCK_S) stuck = true;
      else await sleep(Math.max(0, stopped + (tick + 1) * 1000 - performance.now()));
    }
    await action;
    await ticker;
    console.log(
      zeroAt === null
        ? `  !! projections still lagging ${fmt((performance.now() - stopped) / 1000, 0)} s after the load stopped${stuck ? ` — STUCK: no lag moved for ${STUCK_S} s` : ''}`
        : `  every projection's lag back to 0: ${fmt(zeroAt, 1)} s after the load stopped`,
    );
  } finally {
    await watcher.end();
    await api.close();
  }
};
