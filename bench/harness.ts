import { performance } from 'node:perf_hooks';

export interface Measured {
  /** Operations that succeeded; throughput and latencies are theirs. */
  readonly ops: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50ms: number;
  readonly p99ms: number;
  /** Failed operations by error text: a failure is a finding, never a crash of the bench. */
  readonly failures: ReadonlyMap<string, number>;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 160);

const runLoops = async (clients: number, more: (i: number) => boolean, op: (client: number, i: number) => Promise<void>): Promise<Measured> => {
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = next++; more(i); i = next++) {
        const t = performance.now();
        try {
          await op(client, i);
          latencies.push(performance.now() - t);
        } catch (error) {
          const text = errorText(error);
          failures.set(text, (failures.get(text) ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ops: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50ms: percentile(latencies, 50),
    p99ms: percentile(latencies, 99),
    failures,
  };
};

/** Runs `op` `total` times over `clients` concurrent loops; latencies per op. */
export const measure = (clients: number, total: number, op: (client: number, i: number) => Promise<void>): Promise<Measured> =>
  runLoops(clients, (i) => i < total, op);

/** Runs `op` over `clients` concurrent loops until `seconds` have passed (in-flight ops finish). */
export const measureFor = (clients: number, seconds: number, op: (client: number, i: number) => Promise<void>): Promise<Measured> => {
  const until = performance.now() + seconds * 1000;
  return runLoops(clients, () => performance.now() < until, op);
};

/** Prints a phase's failures loudly, or nothing when there were none. */
export const reportFailures = (what: string, m: Pick<Measured, 'failures'>) => {
  if (m.failures.size === 0) return;
  const total = [...m.failures.values()].reduce((a, b) => a + b, 0);
  console.log(`  !! FAILURES ${what}: ${total}`);
  for (const [text, n] of [...m.failures].sort((a, b) => b[1] - a[1])) console.log(`  !!   ${n} × ${text}`);
};

export const row = (cells: (string | number)[]) => cells.map((c) => String(c).padStart(12)).join(' ');
export const fmt = (n: number, digits = 1) => n.toFixed(digits);
export const elapsedMs = (since: number) => performance.now() - since;
