/** One phase's figures. */
export interface PhaseResult {
  readonly perSecond: number;
  readonly p50ms: number;
  readonly p99ms: number;
  /** The serving process's CPU per put; null where no service runs (raw INSERT). */
  readonly serviceMsPerPut: number | null;
  readonly pgMsPerPut: number;
}

const mid = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 === 1 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
};

/** Each figure's median over the passes (of two passes: their mean). */
export const median = (rs: readonly PhaseResult[]): PhaseResult => {
  const service = rs.map((r) => r.serviceMsPerPut).filter((v): v is number => v !== null);
  return {
    perSecond: mid(rs.map((r) => r.perSecond)),
    p50ms: mid(rs.map((r) => r.p50ms)),
    p99ms: mid(rs.map((r) => r.p99ms)),
    serviceMsPerPut: service.length ? mid(service) : null,
    pgMsPerPut: mid(rs.map((r) => r.pgMsPerPut)),
  };
};

const thousands = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** The section's markdown table: ratios against the Emmett row of the same client count. */
export const markdownTable = (rows: readonly { label: string; clients: number; median: PhaseResult }[], emmettAt: (clients: number) => number): string => {
  const lines = ['| row | clients | puts/s | × Emmett | p50 ms | p99 ms | service CPU ms/put | PostgreSQL CPU ms/put |', '|---|---|---|---|---|---|---|---|'];
  for (const { label, clients, median: m } of rows)
    lines.push(
      `| ${label} | ${clients} | ${thousands(m.perSecond)} | ${fixed(m.perSecond / emmettAt(clients), 2)} | ${fixed(m.p50ms, 1)} | ${fixed(m.p99ms, 1)} | ${m.serviceMsPerPut === null ? '—' : fixed(m.serviceMsPerPut, 2)} | ${fixed(m.pgMsPerPut, 2)} |`,
    );
  return lines.join('\n');
};
