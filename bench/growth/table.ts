import { writeFileSync } from 'node:fs';

/** One growth curve: the hot operation's latency (ms) against the stream's history size. */
export interface Curve {
  readonly stream: string;
  readonly operation: string;
  /** [history size, warm ms, cold ms or null]. */
  readonly points: (readonly [number, number, number | null])[];
}

/** The median: on a shared machine one stalled request would move a mean. */
export const median = (xs: readonly number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const ms = (x: number | null) => (x === null || Number.isNaN(x) ? '–' : x.toFixed(1));

/** The curve as a markdown table, with the ratio of the largest size to the smallest. */
export const printCurve = (c: Curve) => {
  const sizes = c.points.map((p) => p[0].toLocaleString('en-US'));
  console.log(`\n${c.stream}: ${c.operation}`);
  console.log(`| history | ${sizes.join(' | ')} | last ÷ first |`);
  console.log(`|---|${sizes.map(() => '---|').join('')}---|`);
  const ratio = (xs: (number | null)[]) => {
    const first = xs[0];
    const last = xs.at(-1);
    return first && last ? `×${(last / first).toFixed(2)}` : '–';
  };
  const warm = c.points.map((p) => p[1]);
  console.log(`| warm, ms | ${warm.map(ms).join(' | ')} | ${ratio(warm)} |`);
  const cold = c.points.map((p) => p[2]);
  if (cold.some((x) => x !== null)) console.log(`| cold, ms | ${cold.map(ms).join(' | ')} | ${ratio(cold)} |`);
};

/** Every curve as small multiples in one SVG: latency against history size, warm solid, cold dashed. */
export const writeSvg = (file: string, curves: readonly Curve[]) => {
  const W = 300;
  const H = 180;
  const cols = 3;
  const rows = Math.ceil(curves.length / cols);
  const panels = curves.map((c, i) => {
    const x0 = (i % cols) * (W + 20) + 10;
    const y0 = Math.floor(i / cols) * (H + 40) + 10;
    const xs = c.points.map((p) => p[0]);
    const ys = c.points.flatMap((p) => [p[1], p[2] ?? 0]).filter((y) => Number.isFinite(y));
    const maxX = Math.max(...xs, 1);
    const maxY = Math.max(...ys, 1) * 1.15;
    const px = (x: number) => x0 + 40 + (x / maxX) * (W - 50);
    const py = (y: number) => y0 + 20 + (H - 40) * (1 - y / maxY);
    const line = (pick: (p: Curve['points'][number]) => number | null, dash: string) => {
      const pts = c.points.filter((p) => pick(p) !== null && Number.isFinite(pick(p)!)).map((p) => `${px(p[0]).toFixed(1)},${py(pick(p)!).toFixed(1)}`);
      return pts.length > 0 ? `<polyline fill="none" stroke="#246" stroke-width="2" ${dash} points="${pts.join(' ')}"/>` : '';
    };
    const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    return [
      `<text x="${x0}" y="${y0 + 12}" font-size="11">${esc(c.stream)}: ${esc(c.operation)}</text>`,
      `<line x1="${x0 + 40}" y1="${py(0)}" x2="${x0 + W - 10}" y2="${py(0)}" stroke="#999"/>`,
      `<line x1="${x0 + 40}" y1="${py(0)}" x2="${x0 + 40}" y2="${y0 + 20}" stroke="#999"/>`,
      `<text x="${x0}" y="${py(maxY / 1.15) + 4}" font-size="9">${(maxY / 1.15).toFixed(0)} ms</text>`,
      `<text x="${x0 + W - 60}" y="${py(0) + 14}" font-size="9">${maxX.toLocaleString('en-US')}</text>`,
      line((p) => p[1], ''),
      line((p) => p[2], 'stroke-dasharray="4 3"'),
    ].join('\n');
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${cols * (W + 20)}" height="${rows * (H + 40) + 20}" font-family="sans-serif">
<text x="10" y="${rows * (H + 40) + 12}" font-size="10">latency (ms) against history size; solid: warm, dashed: cold (a fresh instance)</text>
${panels.join('\n')}
</svg>
`;
  writeFileSync(file, svg);
};
