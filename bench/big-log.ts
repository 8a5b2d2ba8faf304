import { performance } from 'node:perf_hooks';
import { authenticatedEventStore } from '../adapters/eventstore/authenticated.ts';
import { eventMacKeys } from '../adapters/eventstore/event-macs.ts';
import { postgresEventStore } from '../adapters/eventstore/postgres.ts';
import { postgresKeystore } from '../adapters/keys/keystore.ts';
import { applySchema } from '../adapters/postgres/schema.ts';
import { createPool } from '../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../adapters/postgres/read-model-store.ts';
import { allProjections } from '../projections/all.ts';
import { rebuildProjection } from '../projections/runner.ts';
import { exportTenant } from '../queries/export.ts';
import { startApi, newServiceKeys, JOB, type ServiceKeys } from './api.ts';
import { fmt, measure, reportFailures } from './harness.ts';

const SCOPE = 'project:big';
const body = { note: 'x'.repeat(200), n: 1 };

/**
 * One big log for the cold-put, rebuild and export figures: `records` puts into one scope,
 * then audited gets until the log holds at least `events` events. Built through the HTTP API,
 * as users build it.
 */
export const fillBigLog = async (url: string, records: number, events: number): Promise<ServiceKeys> => {
  const keys = newServiceKeys();
  const api = await startApi(url, keys);
  try {
    console.log(`\nBig log: ${records} records into one scope, then audited gets up to ${events} events (8 clients over HTTP)`);
    const t = performance.now();
    const puts = await measure(8, records, (c, i) => api.rec(c, { op: 'put', scope: SCOPE, record_key: `k${i}`, body, expect: 0 }).then(() => undefined));
    reportFailures('big-log puts', puts);
    let head = await api.svc.store.headPosition();
    while (head < events) {
      const gets = await measure(8, events - head, (c, i) => api.rec(c, { op: 'get', scope: SCOPE, record_key: `k${i % records}` }).then(() => undefined));
      reportFailures('big-log gets', gets);
      if (gets.ops === 0) break;
      head = await api.svc.store.headPosition();
    }
    await api.svc.runner.catchUp();
    console.log(`  ${puts.ops} puts (${fmt(puts.perSecond, 0)}/s into one scope), log head at ${head}, built in ${fmt((performance.now() - t) / 1000, 0)} s`);
  } finally {
    await api.close();
  }
  return keys;
};

/** A new process state on the same database: the first put into the big scope, timed, then a second. */
export const benchColdPut = async (url: string, keys: ServiceKeys) => {
  const api = await startApi(url, keys, true);
  try {
    const ticket = await api.mint();
    const { rows } = await api.svc.pool
      .query<{ n: string }>('SELECT count(*) AS n FROM rm_records WHERE scope = $1', [SCOPE])
      .catch(() => ({ rows: [{ n: '?' }] }));
    for (const which of ['first', 'second']) {
      const t = performance.now();
      try {
        await api.recWith(ticket, { op: 'put', scope: SCOPE, record_key: `after-restart-${which}`, body, expect: 0 });
        console.log(`  ${which} put into the ${rows[0]?.n ?? '?'}-record scope after a restart: ${fmt(performance.now() - t, 1)} ms`);
      } catch (error) {
        console.log(`  !! ${which} put after a restart FAILED in ${fmt(performance.now() - t, 1)} ms: ${(error as Error).message}`);
      }
    }
  } finally {
    await api.close();
  }
};

/** Rebuild of `records` and of every projection, and a cold export, with no service running. */
export const benchRebuildExport = async (url: string, keys: ServiceKeys) => {
  const pool = createPool(url, 4);
  try {
    await applySchema(pool);
    const store = await postgresEventStore(pool);
    const db = postgresReadModelStore(pool);
    const keystore = await postgresKeystore(pool, keys.masterKey);
    const projections = allProjections({ sealer: keystore });
    const head = await store.headPosition();
    console.log(`\nRebuild (one transaction per projection) over ${head} events, and a cold export`);
    let all = 0;
    for (const p of [...projections].sort((a, b) => (a.name === 'records' ? -1 : b.name === 'records' ? 1 : 0))) {
      const t = performance.now();
      await rebuildProjection(store, db, p);
      const s = (performance.now() - t) / 1000;
      all += s;
      console.log(`  rebuild ${p.name.padEnd(16)} ${fmt(s, 2)} s  ${fmt(head / s, 0)} events/s`);
    }
    console.log(`  rebuild of all ${projections.length} projections: ${fmt(all, 1)} s, ${fmt(head / all, 0)} events/s (log events over the total)`);
    // What `custodian rebuild` reads: every event checked against its MAC (the lines above read the table raw).
    const checked = authenticatedEventStore(store, eventMacKeys(keys.masterKey));
    for (const name of ['records', 'audit']) {
      const p = projections.find((x) => x.name === name)!;
      const t = performance.now();
      await rebuildProjection(checked, db, p);
      const s = (performance.now() - t) / 1000;
      console.log(`  rebuild ${`${name}, MAC-checked`.padEnd(16)} ${fmt(s, 2)} s  ${fmt(head / s, 0)} events/s`);
    }
    // A keystore of its own: its data-key cache starts empty, as after a restart.
    const cold = await postgresKeystore(pool, keys.masterKey);
    const t = performance.now();
    const exported = await exportTenant(store, cold, JOB.tenant, {});
    const s = (performance.now() - t) / 1000;
    console.log(`  cold export of tenant ${JOB.tenant}: ${exported.records} records in ${fmt(s, 2)} s, ${fmt(exported.records / s, 0)} records/s`);
    await store.close();
  } finally {
    await pool.end();
  }
};
