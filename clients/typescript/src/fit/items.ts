import { boundsOf, broken, measure, normalBudget, phraseOf, type Bound } from './bounds.ts';
import type { FitNote, View } from './types.ts';

/**
 * Fitting a sequence of whole items (records, versions, audit entries, export lines) rather than
 * a text: an item is never cut, a cut sequence keeps a prefix and says how many were left.
 */
export interface ItemsSpec<T> {
  readonly items: readonly T[];
  /** The item as the full and section views show it. */
  readonly full: (item: T) => unknown;
  /** The item as the summary view shows it (its metadata, never its body). */
  readonly summary: (item: T) => unknown;
  /** One line of the stub's outline. */
  readonly label: (item: T) => string;
  /** Whether `query` names this item (position is 1-based in answer order). */
  readonly matches: (item: T, query: string, position: number) => boolean;
  /** What the note calls the whole ("the list") and one item ("record"). */
  readonly name: string;
  readonly unit: string;
  /** How to read past a cut prefix, given the first item left out ("continue with `next`"). */
  readonly more: (next: T) => string;
  /** The query forms this whole takes, for the stub and the notes. */
  readonly queries: string;
}

export interface ItemsAsk {
  readonly view?: View | undefined;
  readonly budget?: number | undefined;
  readonly query?: string | undefined;
}

export interface FittedItems<T> {
  readonly view: View;
  /** The items returned (full, section or summary views), in order; none for the stub. */
  readonly shown: readonly T[];
  /** What the answer carries for them: their full or summary form. */
  readonly rendered: readonly unknown[];
  /** The stub's text (stub view only). */
  readonly outline: string | null;
  /** Items of the view were left out for a bound: there is more to read. */
  readonly more: boolean;
  readonly fit: FitNote;
}

const n = (x: number): string => x.toLocaleString('en-US');
const plural = (count: number, unit: string) => `${n(count)} ${unit}${count === 1 ? '' : 's'}`;
/** What items weigh as an answer carries them; no items weigh nothing. */
const tokensOf = (values: readonly unknown[]) => (values.length === 0 ? { tokens: 0, chars: 0 } : measure(JSON.stringify(values)));

/** `a-b` (1-based, inclusive) as numbers, or null when the query is not a range. */
export const rangeOf = (query: string): { from: number; to: number } | null => {
  const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(query);
  if (!m) return null;
  const from = Number(m[1]);
  const to = Number(m[2]);
  return from <= to ? { from, to } : { from: to, to: from };
};

/** The longest prefix of `values` whose JSON keeps within the bounds, and the bound the next one broke. */
const prefix = (values: readonly unknown[], bounds: readonly Bound[]): { count: number; cut: Bound[] } => {
  let lo = 0;
  let hi = values.length;
  // Binary search: a longer prefix never weighs less than a shorter one.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (broken(bounds, tokensOf(values.slice(0, mid))).length === 0) lo = mid;
    else hi = mid - 1;
  }
  return { count: lo, cut: lo < values.length ? broken(bounds, tokensOf(values.slice(0, lo + 1))) : [] };
};

const stubText = <T>(spec: ItemsSpec<T>, size: number, bounds: readonly Bound[]): { text: string; cut: Bound[]; shown: number } => {
  const head = `${spec.name}: ${plural(spec.items.length, spec.unit)}, about ${n(size)} tokens in full.`;
  const tail = `Ask for more with a bigger budget, view=summary, or a query (${spec.queries}).`;
  const lines = spec.items.map(spec.label);
  const compose = (k: number) => [head, ...lines.slice(0, k), ...(k < lines.length ? [`… and ${n(lines.length - k)} more`] : []), tail].join('\n');
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (broken(bounds, measure(compose(mid))).length === 0) lo = mid;
    else hi = mid - 1;
  }
  const text = compose(lo);
  const cut = broken(bounds, measure(text));
  if (cut.length === 0) return { text, cut: [], shown: lo };
  // Below what even the bare stub needs: cut it short, character by character from the end.
  let short = head;
  while (short.length > 0 && broken(bounds, measure(short)).length > 0) short = short.slice(0, Math.floor(short.length * 0.8));
  return { text: short, cut, shown: 0 };
};

interface Attempt {
  readonly view: View;
  readonly broke: readonly Bound[];
}

/**
 * The biggest view of the items that fits (or the one asked, falling to smaller ones):
 * `full` (or `section` with a query) as a prefix of whole items, then `summary`, then the stub.
 * A view fits when at least its first item does; the rest of a cut prefix is `more`.
 */
export const fitItems = <T>(spec: ItemsSpec<T>, ask: ItemsAsk): FittedItems<T> => {
  const bounds = boundsOf({ ...(ask.budget !== undefined ? { budget: ask.budget } : {}) });
  const budget = normalBudget(ask.budget) ?? null;
  const all = spec.items;
  const size = tokensOf(all.map(spec.full)).tokens;
  const query = ask.query !== undefined && ask.query !== '' ? ask.query : undefined;
  const start: View = ask.view ?? (query !== undefined ? 'section' : 'full');
  const order: View[] =
    start === 'full'
      ? ['full', 'summary', 'stub']
      : start === 'section'
        ? ['section', 'summary', 'stub']
        : start === 'summary'
          ? ['summary', 'stub']
          : ['stub'];
  const notes: string[] = [];
  let refused: Attempt | null = null;

  for (const view of order) {
    if (view === 'stub') break;
    let candidates: readonly T[] = all;
    if (view === 'section') {
      if (query === undefined) {
        notes.push(`No section was shown: a section view needs a query (${spec.queries}).`);
        continue;
      }
      candidates = all.filter((item, i) => spec.matches(item, query, i + 1));
      if (candidates.length === 0) {
        notes.push(`No ${spec.unit} matched '${query}'.`);
        continue;
      }
    }
    const rendered = candidates.map(view === 'summary' ? spec.summary : spec.full);
    const { count, cut } = prefix(rendered, bounds);
    if (count === 0 && candidates.length > 0) {
      refused ??= { view, broke: cut };
      continue;
    }
    const shown = candidates.slice(0, count);
    const out = rendered.slice(0, count);
    const tokens = tokensOf(out).tokens;
    const left = all.length - count;
    const onward = count < candidates.length ? spec.more(candidates[count]!) : '';
    const what =
      view === 'full'
        ? count === all.length
          ? `This is ${spec.name} whole.`
          : `This is the first ${plural(count, spec.unit)} of ${n(all.length)}; the other ${n(left)} were left out because of ${phraseOf(cut)}: ${onward}.`
        : view === 'section'
          ? `This is the ${plural(count, spec.unit)} matching '${query}'` +
            (count < candidates.length ? ` (of ${n(candidates.length)} matching, the rest left out because of ${phraseOf(cut)}: ${onward})` : '') +
            `; the other ${n(all.length - candidates.length)} of ${spec.name} were left out.`
          : `This is the summary of ${count === all.length ? `all ${plural(count, spec.unit)}` : `the first ${plural(count, spec.unit)} of ${n(all.length)} (the rest left out because of ${phraseOf(cut)}: ${onward})`}, without their bodies.`;
    const why = refused ? ` The ${refused.view} view was too big for ${phraseOf(refused.broke)}.` : '';
    const asked = ask.view !== undefined && ask.view !== view && !refused ? ` The ${ask.view} view was asked for.` : '';
    return {
      view,
      shown,
      rendered: out,
      outline: null,
      more: count < candidates.length,
      fit: { view, budget, size, tokens, omitted: [...notes, what + why + asked].join(' ') },
    };
  }

  const stub = stubText(spec, size, bounds);
  const why = refused ? ` The ${refused.view} view was too big for ${phraseOf(refused.broke)}.` : '';
  const cutShort = stub.cut.length > 0 ? ` The stub itself was cut short to fit ${phraseOf(stub.cut)}.` : '';
  const what = `This is the stub of ${spec.name} (${plural(all.length, spec.unit)}, about ${n(size)} tokens); every ${spec.unit} was left out.`;
  return {
    view: 'stub',
    shown: [],
    rendered: [],
    outline: stub.text,
    more: all.length > 0,
    fit: { view: 'stub', budget, size, tokens: measure(stub.text).tokens, omitted: [...notes, what + why + cutShort].join(' ') },
  };
};
