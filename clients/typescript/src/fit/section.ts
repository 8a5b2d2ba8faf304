import { lineSpan, type Shape } from './shape.ts';

/** What a query names: a line range `120-180` (1-based, inclusive), or a part by name. */
export type Query = { readonly kind: 'lines'; readonly from: number; readonly to: number } | { readonly kind: 'name'; readonly name: string };

const RANGE = /^\s*(\d+)\s*(?:-|–|\.\.)\s*(\d+)\s*$/;

export const parseQuery = (query: string): Query => {
  const m = RANGE.exec(query);
  if (m) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    return { kind: 'lines', from: Math.min(a, b), to: Math.max(a, b) };
  }
  return { kind: 'name', name: query.trim() };
};

export interface Section {
  readonly text: string;
  /** "the section matching 'Install' (lines 40-88)". */
  readonly what: string;
}

const merge = (spans: Array<readonly [number, number]>): Array<[number, number]> => {
  const sorted = [...spans].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
};

/**
 * The section a query names, whole parts only: every part named exactly (without case), else the
 * first whose name ends with "/<query>" (a path given without its folders) or contains it; a line
 * range gives those whole lines. Null when nothing matches.
 */
export const selectSection = (shape: Shape, query: string): Section | null => {
  const q = parseQuery(query);
  if (q.kind === 'lines') {
    if (q.from < 1 || q.from > shape.lines.length) return null;
    const to = Math.min(q.to, shape.lines.length);
    return { text: shape.lines.slice(q.from - 1, to).join('\n'), what: `${lineSpan(q.from - 1, to)} of ${shape.lines.length}` };
  }
  const wanted = q.name.toLowerCase();
  if (wanted === '') return null;
  const names = (pick: (name: string) => boolean) => shape.parts.filter((p) => p.names.some((n) => pick(n.toLowerCase())));
  let parts = names((n) => n === wanted);
  if (parts.length === 0) parts = names((n) => n.endsWith(`/${wanted}`)).slice(0, 1);
  if (parts.length === 0) parts = names((n) => n.includes(wanted)).slice(0, 1);
  if (parts.length === 0) return null;
  const spans = merge(parts.flatMap((p) => p.spans));
  return {
    text: spans.map(([s, e]) => shape.lines.slice(s, e).join('\n')).join('\n'),
    what: `the section matching '${q.name}' (${spans.map(([s, e]) => lineSpan(s, e)).join(', ')})`,
  };
};
