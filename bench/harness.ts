import { performance } from 'node:perf_hooks';

export interface Measured {
  readonly ops: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50ms: number;
  readonly p99ms: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Runs `op` `total` times over `clients` concurrent loops; latencies per op. */
export const measure = async (clients: number, total: number, op: (client: number, i: number) => Promise<void>): Promise<Measured> => {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = next++; i < total; i = next++) {
        const t = performance.now();
        await op(client, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { ops: total, seconds, perSecond: total / seconds, p50ms: percentile(latencies, 50), p99ms: percentile(latencies, 99) };
};

export const row = (cells: (string | number)[]) => cells.map((c) => String(c).padStart(12)).join(' ');
export const fmt = (n: number, digits = 1) => n.toFixed(digits);
