import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../../domain/events/registry.ts';
import { jobStream } from '../../domain/shared/names.ts';
import { startApi, newServiceKeys, JOB, type Api } from '../api.ts';
import { median, printCurve, type Curve } from './table.ts';

const ticketOf = (minted: unknown) => (minted as { _meta: { 'oz0/records': { ticket: string } } })._meta['oz0/records'].ticket;

const startJob = (api: Api, job: string) =>
  api.admin(`/v1/tenants/${JOB.tenant}/jobs`, { id: job, agent: 'scribe', plugin: JOB.plugin, subject: 'bench', input: job, timeout_ms: 86_400_000 });

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const t = performance.now();
  const value = await work();
  return [value, performance.now() - t];
};

/** `n` calls minted into a job, straight into its stream in one append (as many `CallMinted` as the job would write). */
const growJob = async (api: Api, job: string, n: number) => {
  const stream = jobStream(JOB.tenant, job);
  const head = await api.svc.store.readStream(stream);
  const run = 1;
  const now = Date.now();
  const events = Array.from({ length: n }, (_, i) => ({
    event_id: randomUUID(),
    ...eventRegistry.encode({
      type: 'CallMinted',
      data: {
        tenant: JOB.tenant,
        job,
        run,
        call: randomUUID(),
        step: i + 1,
        function: 'save',
        ticket_hash: randomBytes(32).toString('hex'),
        idempotency_key: randomBytes(18).toString('base64url'),
        startup: false,
        minted_ms: now,
      },
    }),
    metadata: { tenant: JOB.tenant, causation_id: null, correlation_id: job },
  }));
  const appended = await api.svc.store.append(stream, events, head.at(-1)!.revision);
  if (E.isLeft(appended)) throw new Error(`growing ${job} conflicted`);
  await api.svc.runner.catchUp();
};

/** One call of a job: its mint, then its ticket's first put (into the job's own scope), both timed. */
const mintAndPut = async (api: Api, job: string, key: string): Promise<[number, number]> => {
  const [minted, mint] = await timed(() => api.admin(`/v1/tenants/${JOB.tenant}/jobs/${job}/calls`, { function: 'save' }));
  const [, put] = await timed(() => api.recWith(ticketOf(minted), { op: 'put', scope: `project:${job}`, record_key: key, body: { n: 1 }, expect: 0 }));
  return [mint, put];
};

/**
 * One job per size, grown to that many calls (each a step of its own, none ended, as one long
 * agent job mints them), then: warm, a window of calls minted and used once each on the instance that
 * grew them; cold, the first call of each job on fresh instances (each warmed on a job of its
 * own first, so the figure is the job's load alone, not the instance's start).
 */
export const benchJobGrowth = async (url: string, sizes: readonly number[], window = 20, restarts = 3): Promise<Curve[]> => {
  const keys = newServiceKeys();
  let api = await startApi(url, keys);
  const jobs = sizes.map((n) => `grow-${n}`);
  const warm = new Map<number, { mint: number[]; put: number[] }>();
  const cold = new Map<number, { mint: number[]; put: number[] }>();
  try {
    const t = performance.now();
    for (const job of jobs) await startJob(api, job);
    // Each job's history written straight to its stream (valid MACs, one append): minting them
    // one by one over HTTP waits for the read models each time, minutes on a shared machine.
    for (const [i, n] of sizes.entries()) await growJob(api, jobs[i]!, n);
    console.log(`\nJob growth: ${sizes.join(', ')} calls written into ${sizes.length} jobs in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    for (const [i, n] of sizes.entries()) {
      const w = { mint: [] as number[], put: [] as number[] };
      for (let c = 0; c < window; c++) {
        const [mint, put] = await mintAndPut(api, jobs[i]!, `warm-${c}`);
        w.mint.push(mint);
        w.put.push(put);
      }
      warm.set(n, w);
    }
    for (let r = 0; r < restarts; r++) {
      await api.close();
      api = await startApi(url, keys, true);
      await startJob(api, `warmup-${r}`);
      await mintAndPut(api, `warmup-${r}`, 'w');
      // A different order each round: no size always comes first.
      const order = sizes.map((_, i) => (i + r) % sizes.length);
      for (const i of order) {
        const [mint, put] = await mintAndPut(api, jobs[i]!, `cold-${r}`);
        const c = cold.get(sizes[i]!) ?? { mint: [], put: [] };
        c.mint.push(mint);
        c.put.push(put);
        cold.set(sizes[i]!, c);
      }
    }
  } finally {
    await api.close();
  }
  const curve = (operation: string, pick: (m: { mint: number[]; put: number[] }) => number[]): Curve => ({
    stream: 'a job',
    operation,
    points: sizes.map((n) => [n, median(pick(warm.get(n)!)), median(pick(cold.get(n)!))] as const),
  });
  const curves = [
    curve(`mint a call (POST …/jobs/{id}/calls), median of ${window} warm, ${restarts} cold`, (m) => m.mint),
    curve("the call's first put (the fence's admission)", (m) => m.put),
  ];
  curves.forEach(printCurve);
  return curves;
};
