import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../../domain/events/registry.ts';
import { startApi, newServiceKeys, JOB, type Api } from '../api.ts';
import { median, printCurve, type Curve } from './table.ts';

const ticketOf = (minted: unknown) => (minted as { _meta: { 'oz0/records': { ticket: string } } })._meta['oz0/records'].ticket;
const timed = async (work: () => Promise<unknown>) => {
  const t = performance.now();
  await work();
  return performance.now() - t;
};
const mint = (api: Api, tenant: string, job: string) => api.admin(`/v1/tenants/${tenant}/jobs/${job}/calls`, { function: 'save' });

/** A second tenant, plugin and job: a fresh instance is warmed on it, so a cold figure is the stream's load alone. */
const provisionWarm = async (api: Api) => {
  await api.admin('/v1/tenants', { id: 'warm' });
  await api.admin('/v1/tenants/warm/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  await api.admin('/v1/tenants/warm/jobs', { id: 'warm', agent: 'scribe', plugin: 'notes', subject: 'bench', input: 'warm', timeout_ms: 86_400_000 });
};
const warmUp = async (api: Api, r: number) => {
  const ticket = ticketOf(await mint(api, 'warm', 'warm'));
  await api.recWith(ticket, { op: 'put', scope: `project:warm-${r}`, record_key: 'w', body: {}, expect: 0 });
};

/**
 * A tenant's stream grown by admin changes (plugins installed, a revocation batch every 100th): at each size, an install and a mint on the tenant's job, warm;
 * and the first mint of a fresh instance, cold.
 */
export const benchTenantGrowth = async (url: string, sizes: readonly number[], window = 10): Promise<Curve[]> => {
  const keys = newServiceKeys();
  let api = await startApi(url, keys);
  await provisionWarm(api);
  const points: { n: number; install: number; mint: number; cold: number }[] = [];
  let changes = 0;
  // Plugins installed straight into the tenant's stream (MACed, 500 an append), and every 100th
  // change a revocation batch through the API (a kill of the newest plugin's agent).
  const grow = async (to: number) => {
    while (changes < to) {
      const head = await api.svc.store.readStream(`tenant:${JOB.tenant}`);
      const n = Math.min(500, to - changes);
      const events = Array.from({ length: n }, (_, i) => ({
        event_id: randomUUID(),
        ...eventRegistry.encode({
          type: 'PluginInstalled',
          data: {
            tenant: JOB.tenant,
            name: `g${changes + i}`,
            install_gen: 1000 + changes + i,
            scopes: [],
            functions: ['f'],
            agents: ['a'],
            startup: null,
            installed_ms: Date.now(),
          },
        }),
        metadata: { tenant: JOB.tenant, causation_id: null, correlation_id: null },
      }));
      const appended = await api.svc.store.append(`tenant:${JOB.tenant}`, events, head.at(-1)!.revision);
      if (E.isLeft(appended)) throw new Error('growing the tenant conflicted');
      changes += n;
      for (let k = 0; k < n / 100; k++)
        await api.admin(`/v1/tenants/${JOB.tenant}/revocations`, { revocations: [{ kind: 'kill_agent', agent: `g${changes - 1 - k}/a` }] });
    }
    await api.svc.runner.catchUp();
  };
  try {
    for (const n of sizes) {
      await grow(n);
      const events = (await api.svc.store.readStream(`tenant:${JOB.tenant}`)).length;
      const installs: number[] = [];
      for (let i = 0; i < 3; i++)
        installs.push(await timed(() => api.admin(`/v1/tenants/${JOB.tenant}/plugins`, { name: `w${n}-${i}`, functions: ['f'], agents: ['a'] })));
      const mints: number[] = [];
      for (let i = 0; i < window; i++) mints.push(await timed(() => mint(api, JOB.tenant, JOB.job)));
      // Cold: the first mint of each of three fresh instances (one sample is mostly noise).
      const colds: number[] = [];
      for (let r = 0; r < 3; r++) {
        await api.close();
        api = await startApi(url, keys, true);
        await warmUp(api, 3 * n + r);
        colds.push(await timed(() => mint(api, JOB.tenant, JOB.job)));
      }
      points.push({ n: events, install: median(installs), mint: median(mints), cold: median(colds) });
    }
  } finally {
    await api.close();
  }
  const curves: Curve[] = [
    { stream: "a tenant's stream (plugins, revocations)", operation: 'install a plugin', points: points.map((p) => [p.n, p.install, null] as const) },
    {
      stream: "a tenant's stream (plugins, revocations)",
      operation: "mint a call on the tenant's job",
      points: points.map((p) => [p.n, p.mint, p.cold] as const),
    },
  ];
  curves.forEach(printCurve);
  return curves;
};

const versionWritten = (scope: string, i: number, now: number) => ({
  event_id: randomUUID(),
  ...eventRegistry.encode({
    type: 'RecordVersionWritten',
    data: {
      tenant: JOB.tenant,
      plugin: JOB.plugin,
      scope,
      key: `k${i}`,
      version: 1,
      body: { k: randomUUID(), n: '', c: '' },
      body_bytes: 10,
      kind: 'note',
      state: 'active',
      supersedes: null,
      ends_at: now + 30 * 86_400_000,
      subject_kind: 'work',
      closed: false,
      purpose: 'routine:seed',
      labels: [],
      created_ms: now,
      writer: { job: 'seed', run: 1, call: 'seed', step: 1, agent: 'scribe', plugin: JOB.plugin, tainted: false },
      data_subject: null,
      request_key: `seed#${scope}#${i}`,
      dedupe: null,
    },
  }),
  metadata: { tenant: JOB.tenant, causation_id: null, correlation_id: null },
});

/**
 * A records scope per size, seeded straight into the log (2,000 versions an append), then:
 * warm, puts into it on the instance that took its first put (the replay, which leaves a
 * snapshot); cold, the first put of a fresh instance.
 */
export const benchScopeGrowth = async (url: string, sizes: readonly number[], window = 10): Promise<Curve[]> => {
  const keys = newServiceKeys();
  let api = await startApi(url, keys);
  await provisionWarm(api);
  const warm = new Map<number, number[]>();
  const cold = new Map<number, number>();
  try {
    const now = Date.now();
    for (const n of sizes) {
      let revision: number | 'no_stream' = 'no_stream';
      for (let from = 0; from < n; from += 2000) {
        const events = [];
        for (let i = from; i < Math.min(n, from + 2000); i++) events.push(versionWritten(`project:s${n}`, i, now));
        const appended = await api.svc.store.append(`records:${JOB.tenant}:${JOB.plugin}:project:s${n}`, events, revision);
        if (E.isLeft(appended)) throw new Error('seeding conflicted');
        revision = appended.right.nextExpectedRevision;
      }
    }
    // The projections take in the seeded versions before any put is timed (see the reads' curve).
    await api.svc.runner.catchUp();
    let ticket = ticketOf(await mint(api, JOB.tenant, JOB.job));
    let used = 0;
    const put = async (scope: string, key: string) => {
      if (used++ >= 60) {
        ticket = ticketOf(await mint(api, JOB.tenant, JOB.job));
        used = 1;
      }
      return timed(() => api.recWith(ticket, { op: 'put', scope, record_key: key, body: { n: 1 }, expect: 0 }));
    };
    for (const n of sizes) {
      await put(`project:s${n}`, 'first');
      const w: number[] = [];
      for (let i = 0; i < window; i++) w.push(await put(`project:s${n}`, `warm-${i}`));
      warm.set(n, w);
    }
    // Cold: the first put into each scope on each of three fresh instances (median).
    const colds = new Map<number, number[]>();
    for (let r = 0; r < 3; r++) {
      await api.close();
      api = await startApi(url, keys, true);
      await warmUp(api, r);
      ticket = ticketOf(await mint(api, JOB.tenant, JOB.job));
      used = 0;
      for (const n of [...sizes].reverse()) colds.set(n, [...(colds.get(n) ?? []), await put(`project:s${n}`, `cold-${r}`)]);
    }
    for (const [n, c] of colds) cold.set(n, median(c));
  } finally {
    await api.close();
  }
  const curve: Curve = { stream: 'a records scope', operation: 'put', points: sizes.map((n) => [n, median(warm.get(n)!), cold.get(n)!] as const) };
  printCurve(curve);
  return [curve];
};

/**
 * One job's reads: each get appends its `RecordsRead` to the job's reads stream with
 * expected revision any (nothing folds that stream), so a get costs the same at any count.
 */
export const benchReadsGrowth = async (url: string, sizes: readonly number[], window = 20): Promise<Curve[]> => {
  const api = await startApi(url, newServiceKeys());
  const points: [number, number, null][] = [];
  try {
    let ticket = ticketOf(await mint(api, JOB.tenant, JOB.job));
    let used = 0;
    const get = async () => {
      if (used++ >= 60) {
        ticket = ticketOf(await mint(api, JOB.tenant, JOB.job));
        used = 1;
      }
      return timed(() => api.recWith(ticket, { op: 'get', scope: 'project:reads', record_key: 'r' }));
    };
    await api.recWith(ticket, { op: 'put', scope: 'project:reads', record_key: 'r', body: { n: 1 }, expect: 0 });
    used++;
    const found = await fetch(`${api.svc.url}/v1/tenants/${JOB.tenant}/jobs/${JOB.job}`, { headers: { authorization: 'Bearer bench-admin-key' } });
    const { purpose } = ((await found.json()) as { job: { purpose: string } }).job;
    let reads = 0;
    for (const n of sizes) {
      // The reads written straight to the job's reads stream (MACed, as a get writes them).
      const events = Array.from({ length: Math.max(0, n - reads) }, (_, i) => ({
        event_id: randomUUID(),
        ...eventRegistry.encode({
          type: 'RecordsRead',
          data: {
            tenant: JOB.tenant,
            job: JOB.job,
            run: 1,
            call: `grown-${reads + i}`,
            step: 1,
            op: 'get',
            startup: false,
            plugin: JOB.plugin,
            purpose,
            records: [{ scope: 'project:reads', key: 'r', version: 1 }],
            withheld: 0,
            read_ms: Date.now(),
          },
        }),
        metadata: { tenant: JOB.tenant, causation_id: null, correlation_id: null },
      }));
      if (events.length > 0 && E.isLeft(await api.svc.store.append(`reads:${JOB.tenant}:${JOB.job}`, events, 'any'))) throw new Error('reads conflicted');
      reads = Math.max(reads, n);
      // The projections take in what was just written before the gets are timed: a get is
      // answered once the read models hold it, and the curve is a get's cost, not a catch-up's.
      await api.svc.runner.catchUp();
      const w: number[] = [];
      for (let i = 0; i < window; i++) w.push(await get());
      reads += window;
      await api.svc.runner.catchUp();
      points.push([n, median(w), null]);
    }
  } finally {
    await api.close();
  }
  const curve: Curve = { stream: "a job's reads stream", operation: 'get (a read audited)', points };
  printCurve(curve);
  return [curve];
};
