import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchAgentGrowth } from './agent.ts';
import { benchBigLogGrowth } from './big-log.ts';
import { benchJobGrowth } from './jobs.ts';
import { benchReadsGrowth, benchScopeGrowth, benchTenantGrowth } from './streams.ts';
import { printCurve, writeSvg, type Curve } from './table.ts';

/** BENCH_GROWTH_ONLY=jobs,tenant,reads,scope,agent,log picks curves (default: all). */
const picked = (process.env.BENCH_GROWTH_ONLY ?? 'jobs,tenant,reads,scope,agent,log').split(',');
const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map(Number);

/**
 * Growth curves: for each stream that grows, its hot operation's latency against its history
 * size, each on a database of its own, then every curve again in one place and as an SVG.
 */
export const benchGrowth = async (fresh: (name: string) => Promise<string>) => {
  const started = Date.now();
  const curves: Curve[] = [];
  if (picked.includes('jobs')) curves.push(...(await benchJobGrowth(await fresh('bench_growth_jobs'), list('BENCH_GROWTH_CALLS', '100,1000,2500,5000'))));
  if (picked.includes('tenant')) curves.push(...(await benchTenantGrowth(await fresh('bench_growth_tenant'), list('BENCH_GROWTH_TENANT', '0,1000,5000'))));
  if (picked.includes('reads')) curves.push(...(await benchReadsGrowth(await fresh('bench_growth_reads'), list('BENCH_GROWTH_READS', '100,10000,100000'))));
  if (picked.includes('scope')) curves.push(...(await benchScopeGrowth(await fresh('bench_growth_scope'), list('BENCH_GROWTH_SCOPE', '100,5000,19900'))));
  if (picked.includes('agent')) curves.push(...(await benchAgentGrowth(await fresh('bench_growth_agent'), list('BENCH_GROWTH_AGENT', '100,1000,10000'))));
  if (picked.includes('log'))
    curves.push(
      ...(await benchBigLogGrowth(
        await fresh('bench_growth_log'),
        list('BENCH_GROWTH_EVENTS', '100000,1000000'),
        Number(process.env.BENCH_GROWTH_REBUILD_S ?? 120),
      )),
    );
  console.log(`\nGrowth curves, all in one place (${((Date.now() - started) / 60_000).toFixed(1)} min):`);
  curves.forEach(printCurve);
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'growth.svg');
  writeSvg(file, curves);
  console.log(`\n  plot: ${path.relative(process.cwd(), file)}`);
};
