import { boundsOf, broken, countChars, measure, normalBudget, type Bound, type Measure } from './bounds.ts';
import { omitted, type Refusal, type Story } from './note.ts';
import { selectSection } from './section.ts';
import type { Part, Shape } from './shape.ts';
import type { FitOptions, Fitted, View } from './types.ts';
import { wanted } from './types.ts';

// The view rules, for any whole cut into parts (a document, a diff, a JSON value):
// left out, the view is the biggest that fits (full, or section when there is a query, then
// summary, then stub); a view asked for that does not fit falls to the next smaller one, never to a
// bigger one; the stub is the floor, cut to fit when even it is too big for a tiny budget.

const ORDER: readonly View[] = ['full', 'section', 'summary', 'stub'];

const n = (x: number): string => x.toLocaleString('en-US');

const headline = (shape: Shape, name: string, size: number): string =>
  `${name}: ${shape.kind}, ${n(size)} tokens, ${n(shape.lines.length)} lines, ${n(countChars(shape.full))} characters; ${shape.facts}.`;

const visible = (shape: Shape): Part[] => shape.parts.filter((p) => !p.hidden);

export const summaryOf = (shape: Shape, name: string, size: number): string =>
  [headline(shape, name, size), ...visible(shape).map((p) => p.summary)].join('\n');

interface Stub {
  readonly text: string;
  readonly shown: number;
  readonly cut: readonly Bound[];
}

/** The longest prefix of `text` that fits (never splitting a surrogate pair). */
const cutToFit = (text: string, fits: (text: string) => boolean): string => {
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(text.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  // weigh is not strictly monotone in the prefix; step back until the prefix really fits.
  let end = lo;
  while (end > 0 && !fits(text.slice(0, end))) end--;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
};

const stubOf = (shape: Shape, name: string, size: number, withHead: (body: string) => string, bounds: readonly Bound[]): Stub => {
  const parts = visible(shape);
  const hint = `To read more: ask for a bigger budget, or for view "section" with a query (${shape.queries}).`;
  const make = (shown: number): string => {
    const lines = [headline(shape, name, size)];
    // A loop, not push(...spread): 200,000 parts as call arguments overflow the stack.
    if (parts.length > 0 && shown > 0) {
      lines.push('Outline:');
      for (const p of parts.slice(0, shown)) lines.push(p.outline);
    }
    if (shown < parts.length) lines.push(`… and ${n(parts.length - shown)} more`);
    lines.push(hint);
    return withHead(lines.join('\n'));
  };
  const fits = (text: string): boolean => broken(bounds, measure(text)).length === 0;
  if (fits(make(parts.length))) return { text: make(parts.length), shown: parts.length, cut: [] };
  // The most outline lines that fit.
  let lo = 0;
  let hi = parts.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(make(mid))) lo = mid;
    else hi = mid - 1;
  }
  if (fits(make(lo))) return { text: make(lo), shown: lo, cut: [] };
  const whole = make(0);
  return { text: cutToFit(whole, fits), shown: 0, cut: broken(bounds, measure(whole)) };
};

/** Fits a whole cut into parts to the options; `noun` names it when the caller gave no name. */
export const fitShape = (shape: Shape, options: FitOptions, noun: string): Fitted => {
  if (!wanted(options)) return { text: shape.full, fit: null };
  const name = options.name ?? noun;
  const head = options.head;
  const withHead = (body: string): string => (head !== undefined && head !== '' ? `${head}\n${body}` : body);
  const bounds = boundsOf(options);
  const budget = normalBudget(options.budget) ?? null;
  const whole = measure(withHead(shape.full));
  const size = whole.tokens;
  const query = options.query !== undefined && options.query.trim() !== '' ? options.query.trim() : undefined;
  // A view that is none of the four (untyped input) counts as left out.
  const asked = options.view !== undefined && ORDER.includes(options.view) ? options.view : undefined;
  const start: View = asked ?? (query !== undefined ? 'section' : 'full');
  let refused: Refusal | null = null;
  let missing: Story['missing'] = null;
  const answer = (view: View, text: string, measured: Measure, extra: Partial<Story> = {}): Fitted => ({
    text,
    fit: {
      view,
      budget,
      size,
      tokens: measured.tokens,
      omitted: omitted({ view, name, size, tokens: measured.tokens, query, refused, missing, queries: shape.queries, ...extra }),
    },
  });
  for (const view of ORDER.slice(ORDER.indexOf(start))) {
    if (view === 'stub') break;
    let body: string;
    let section: string | undefined;
    if (view === 'section') {
      if (query === undefined) {
        if (start === 'section') missing = 'no_query';
        continue;
      }
      const found = selectSection(shape, query);
      if (found === null) {
        missing = 'no_match';
        continue;
      }
      body = found.text;
      section = found.what;
    } else body = view === 'full' ? shape.full : summaryOf(shape, name, size);
    const text = withHead(body);
    const m = view === 'full' ? whole : measure(text);
    const over = broken(bounds, m);
    if (over.length === 0) return answer(view, text, m, section !== undefined ? { section } : {});
    refused ??= { view, tokens: m.tokens, bounds: over };
  }
  const stub = stubOf(shape, name, size, withHead, bounds);
  return answer('stub', stub.text, measure(stub.text), { outline: { shown: stub.shown, total: visible(shape).length }, cut: stub.cut });
};
