import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as E from 'fp-ts/lib/Either.js';
import { authenticatedEventStore } from '../../adapters/eventstore/authenticated.ts';
import { eventMacKeys } from '../../adapters/eventstore/event-macs.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgres.ts';
import { applySchema } from '../../adapters/postgres/schema.ts';
import { createPool } from '../../adapters/postgres/pool.ts';
import { eventRegistry } from '../../domain/events/registry.ts';
import { ADMIN, JOB, newServiceKeys, startApi, type Api, type ServiceKeys } from '../api.ts';
import { median, ms, type Curve } from './table.ts';

const BATCH = 10_000;
const SCOPE = 'project:big-log';

/** `count` audited reads written straight to the log in batches of 10,000 (each event MACed by the store, as the service's are). */
const writeSynthetic = async (url: string, keys: ServiceKeys, from: number, count: number, purpose: string) => {
  const pool = createPool(url, 4);
  await applySchema(pool);
  const store = authenticatedEventStore(await postgresEventStore(pool), eventMacKeys(keys.masterKey));
  try {
    const now = Date.now();
    for (let done = 0; done < count; done += BATCH) {
      const n = Math.min(BATCH, count - done);
      const events = Array.from({ length: n }, (_, i) => ({
        event_id: randomUUID(),
        ...eventRegistry.encode({
          type: 'RecordsRead',
          data: {
            tenant: JOB.tenant,
            job: JOB.job,
            run: 1,
            call: `synthetic-${from + done + i}`,
            step: 1,
            op: 'get',
            startup: false,
            plugin: JOB.plugin,
            purpose,
            records: [{ scope: SCOPE, key: 'k0', version: 1 }],
            withheld: 0,
            read_ms: now,
          },
        }),
        metadata: { tenant: JOB.tenant, causation_id: null, correlation_id: null },
      }));
      // Reads streams of their own (as the service writes reads apart from the job's stream).
      const appended = await store.append(`reads:${JOB.tenant}:synthetic-${(from + done) % 16}`, events, 'any');
      if (E.isLeft(appended)) throw new Error('an append with expected revision any conflicted');
    }
  } finally {
    await store.close?.();
    await pool.end();
  }
};

const auditGet = async (api: Api, path: string) => {
  const t = performance.now();
  const res = await fetch(`${api.svc.url}/v1/tenants/${JOB.tenant}/audit${path}`, { headers: { authorization: `Bearer ${ADMIN}` } });
  await res.text();
  if (res.status !== 200) throw new Error(`audit${path}: ${res.status}`);
  return performance.now() - t;
};

/**
 * Whether every projection of the instance, the audit log's too (it lags behind the others on
 * purpose, so a write's answer never waits for it), holds the log up to `head` within `capSeconds`.
 */
const caughtUp = async (api: Api, head: number, capSeconds: number) => {
  const deadline = performance.now() + capSeconds * 1000;
  await api.svc.runner.waitFor(head, Math.max(0, Math.min(60_000, deadline - performance.now())));
  while (lowest(api) < head && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
  return lowest(api) >= head;
};
const lowest = (api: Api) => Math.min(...Object.values(api.svc.runner.checkpoints()));

/** The audit tree's size as the service answers it (its checkpoint). */
const auditSize = async (api: Api) => {
  const res = await fetch(`${api.svc.url}/v1/tenants/${JOB.tenant}/audit/checkpoint`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const body = (await res.json()) as { size?: number; tree_size?: number };
  return Number(body.size ?? body.tree_size ?? 0);
};

/**
 * A tenant's log grown to `total` events by audited reads written straight to the events table
 * (valid MACs, 10,000 per append), in steps: after each step a fresh instance's projections
 * catch up on the log (the rebuild rate, over at most `capSeconds`; the put waits for the rest),
 * then its first put (cold caches), and the audit checkpoint and an inclusion proof are timed
 * at the tree's size.
 */
export const benchBigLogGrowth = async (url: string, steps: readonly number[], capSeconds: number): Promise<Curve[]> => {
  const keys = newServiceKeys();
  let api = await startApi(url, keys);
  const rows: { events: number; entries: number; append: number; rate: number; caught: boolean; coldPut: number; checkpoint: number; proof: number }[] = [];
  const proofAt = async () => {
    const size = await auditSize(api);
    const checkpoint = median([await auditGet(api, '/checkpoint'), await auditGet(api, '/checkpoint'), await auditGet(api, '/checkpoint')]);
    const leaf = Math.max(0, Math.floor(size / 2));
    const proof =
      size > 0
        ? median([
            await auditGet(api, `/proof?leaf=${leaf}&size=${size}`),
            await auditGet(api, `/proof?leaf=0&size=${size}`),
            await auditGet(api, `/proof?leaf=${size - 1}&size=${size}`),
          ])
        : NaN;
    return { size, checkpoint, proof };
  };
  try {
    await api.recWith(await api.mint(), { op: 'put', scope: SCOPE, record_key: 'k0', body: { n: 0 }, expect: 0 });
    await api.svc.runner.catchUp();
    const found = await fetch(`${api.svc.url}/v1/tenants/${JOB.tenant}/jobs/${JOB.job}`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const { purpose } = ((await found.json()) as { job: { purpose: string } }).job;
    const small = await proofAt();
    rows.push({
      events: await api.svc.store.headPosition(),
      entries: small.size,
      append: NaN,
      rate: NaN,
      caught: true,
      coldPut: NaN,
      checkpoint: small.checkpoint,
      proof: small.proof,
    });
    let written = 0;
    let previousHead = await api.svc.store.headPosition();
    for (const target of steps) {
      await api.close();
      const t = performance.now();
      await writeSynthetic(url, keys, written, target - written, purpose);
      const append = ((target - written) / (performance.now() - t)) * 1000;
      written = target;
      // The rebuild is timed from the instance's start: a start that catches up first counts too.
      const r = performance.now();
      api = await startApi(url, keys, true);
      // A command is answered only once the read models hold it (503 "read models are behind the
      // log" before, as it should be): a fresh instance on a grown log catches up first, and that
      // catch-up is the rebuild measured. The first put is timed after it, on cold caches.
      const head = await api.svc.store.headPosition();
      // The instance before this one left every projection at the previous head (it caught up).
      const before = previousHead;
      const caught = await caughtUp(api, head, capSeconds);
      const rate = ((Math.min(lowest(api), head) - before) / (performance.now() - r)) * 1000;
      previousHead = head;
      if (!caught) await caughtUp(api, head, Infinity);
      const ticket = await api.mint();
      const p = performance.now();
      await api.recWith(ticket, { op: 'put', scope: SCOPE, record_key: `cold-${target}`, body: { n: 1 }, expect: 0 });
      const coldPut = performance.now() - p;
      const at = await proofAt();
      rows.push({ events: head, entries: at.size, append, rate, caught, coldPut, checkpoint: at.checkpoint, proof: at.proof });
    }
  } finally {
    await api.close();
  }
  console.log(`\nA tenant's audit log, grown by audited reads written straight to the log (10,000 per append, MACed)`);
  console.log('| log events | audit entries | append, events/s | rebuild, events/s | cold first put, ms | checkpoint, ms | inclusion proof, ms |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.events.toLocaleString('en-US')} | ${r.entries.toLocaleString('en-US')} | ${Number.isNaN(r.append) ? '–' : r.append.toFixed(0)} | ${Number.isNaN(r.rate) ? '–' : r.rate.toFixed(0)}${r.caught ? '' : ` (of the first ${capSeconds} s)`} | ${ms(r.coldPut)} | ${ms(r.checkpoint)} | ${ms(r.proof)} |`,
    );
  return [
    { stream: "a tenant's audit log", operation: 'checkpoint', points: rows.map((r) => [r.entries, r.checkpoint, null] as const) },
    { stream: "a tenant's audit log", operation: 'inclusion proof', points: rows.map((r) => [r.entries, r.proof, null] as const) },
  ];
};
