// The CPU of one tenant command in-process, against the plugins the tenant has: `node --import tsx bench/growth/tenant-install-cpu.ts [100,5000]`.
import { performance } from 'node:perf_hooks';
import * as E from 'fp-ts/lib/Either.js';
import { tenantDecider, type TenantCommand } from '../../domain/tenants/decide.ts';
import { defaultSettings } from '../../domain/tenants/settings.ts';
import { createHmac } from 'node:crypto';
import { packTenant, unpackTenant } from '../../domain/tenants/snapshot.ts';
import { evolveTenant, foldTenant, initialTenantState, type TenantState, type TenantStreamEvent } from '../../domain/tenants/state.ts';

/**
 * Not a test: a micro-measure of what issue 28 is about, an install's decide and evolve (and a
 * revocation batch removing one plugin) on a tenant of n plugins, no database, no HTTP. Each
 * round starts from the same folded state (states are values) and installs a name it never had,
 * under a request id. Medians and 90th percentiles of ROUNDS rounds, after WARMUP. Plain
 * objects spread per install cost 8.6–14.8 ms at 5,000 plugins; persistent maps, tens of µs.
 * The tenant snapshot's pack and open are timed too: they still hold every plugin (what a cold
 * instance reads, and what is packed every 100 events after the answer), so they grow with n.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const WARMUP = 10;
const sizes = (process.argv[2] ?? '100,5000').split(',').map(Number);

const installed = (name: string, request_id: string): TenantStreamEvent => ({
  type: 'PluginInstalled',
  data: { tenant: 'acme', name, install_gen: 1, scopes: ['tenant'], functions: ['save'], agents: ['scribe'], startup: null, installed_ms: 1, request_id },
});

const tenantOf = (n: number): TenantState =>
  foldTenant(initialTenantState(), [
    { type: 'TenantCreated', data: { tenant: 'acme', settings: defaultSettings(), authority_epoch: 1, created_ms: 1 } },
    ...Array.from({ length: n }, (_, i) => installed(`plugin-${i}`, `install-${i}`)),
  ]);

/** One command decided and its events evolved onto `state`; the time it took, in µs. */
const decideAndEvolve = (state: TenantState, command: TenantCommand): number => {
  const t0 = performance.now();
  const decided = tenantDecider.decide(command, state);
  if (E.isLeft(decided) || decided.right.length === 0) throw new Error(`not decided: ${JSON.stringify(decided)}`);
  decided.right.reduce<TenantState>((s, e) => evolveTenant(s, e as TenantStreamEvent), state);
  return (performance.now() - t0) * 1000;
};

const mac = (input: string) => createHmac('sha256', 'bench').update(input).digest('base64url');

/** Any work, timed on its own (µs). */
const timedUs = (work: () => unknown): number => {
  const t0 = performance.now();
  work();
  return (performance.now() - t0) * 1000;
};

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

const measure = (label: string, n: number, once: (round: number) => number, rounds = ROUNDS) => {
  const times: number[] = [];
  for (let round = 0; round < WARMUP + rounds; round++) {
    const us = once(round);
    if (round >= WARMUP) times.push(us);
  }
  return { label, n, median: quantile(times, 0.5), p90: quantile(times, 0.9) };
};

const rows = sizes.flatMap((n) => {
  const state = tenantOf(n);
  const packed = packTenant({ state, batches: [], position: 1 }, 'tenant:acme', 1, mac);
  return [
    measure('install a plugin', n, (round) =>
      decideAndEvolve(state, {
        type: 'InstallPlugin',
        tenant: 'acme',
        name: `new-${round}`,
        functions: ['save'],
        agents: ['scribe'],
        request_id: `new-${round}`,
        now: 2,
      }),
    ),
    measure('revocation batch removing one plugin', n, (round) =>
      decideAndEvolve(state, { type: 'ApplyRevocations', tenant: 'acme', items: [{ kind: 'plugin_removed', plugin: `plugin-${round % n}` }], now: 2 }),
    ),
    measure('pack the tenant snapshot', n, () => timedUs(() => packTenant({ state, batches: [], position: 1 }, 'tenant:acme', 1, mac)), 30),
    measure('open the tenant snapshot', n, () => timedUs(() => unpackTenant(packed, 'tenant:acme', 1, mac)), 30),
  ];
});

console.log(`in-process, µs (decide + evolve: ${ROUNDS} rounds; snapshots: 30)`);
console.log('| command | plugins | median | p90 |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.label} | ${r.n.toLocaleString('en')} | ${r.median.toFixed(1)} | ${r.p90.toFixed(1)} |`);
for (const label of new Set(rows.map((r) => r.label))) {
  const of = rows.filter((r) => r.label === label);
  console.log(`${label}: last ÷ first ×${(of.at(-1)!.median / of[0]!.median).toFixed(2)}`);
}
