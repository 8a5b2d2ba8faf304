/** One phase's figures. */
export interface PhaseResult {
  readonly perSecond: number;
  readonly p50ms: number;
  readonly p99ms: number;
  /** The serving process's CPU per op (put or get); null where no service runs (raw INSERT). */
  readonly serviceMsPerOp: number | null;
  readonly pgMsPerOp: number;
}

const mid = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 === 1 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
};

/** Each figure's median over the passes (of two passes: their mean). */
export const median = (rs: readonly PhaseResult[]): PhaseResult => {
  const service = rs.map((r) => r.serviceMsPerOp).filter((v): v is number => v !== null);
  return {
    perSecond: mid(rs.map((r) => r.perSecond)),
    p50ms: mid(rs.map((r) => r.p50ms)),
    p99ms: mid(rs.map((r) => r.p99ms)),
    serviceMsPerOp: service.length ? mid(service) : null,
    pgMsPerOp: mid(rs.map((r) => r.pgMsPerOp)),
  };
};

const thousands = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/**
 * The section's markdown table. `base` is the ops/s of the row a row's ratio is against (the
 * Emmett row of the same client count and op); `against` names it when it is not the put's.
 */
export const markdownTable = (rows: readonly { label: string; clients: number; median: PhaseResult; base: number; against?: string }[]): string => {
  const lines = ['| row | clients | ops/s | × Emmett | p50 ms | p99 ms | service CPU ms/op | PostgreSQL CPU ms/op |', '|---|---|---|---|---|---|---|---|'];
  for (const { label, clients, median: m, base, against } of rows)
    lines.push(
      `| ${label} | ${clients} | ${thousands(m.perSecond)} | ${fixed(m.perSecond / base, 2)}${against ? ` (${against})` : ''} | ${fixed(m.p50ms, 1)} | ${fixed(m.p99ms, 1)} | ${m.serviceMsPerOp === null ? '—' : fixed(m.serviceMsPerOp, 2)} | ${fixed(m.pgMsPerOp, 2)} |`,
    );
  return lines.join('\n');
};
