import { boundsOf, broken, CAP, measure, normalBudget, phraseOf, type Bound } from '../../clients/typescript/src/fit/bounds.ts';
import { firstSentence } from '../../clients/typescript/src/fit/sentence.ts';
import { VIEWS, type FitNote, type View } from '../../clients/typescript/src/fit/types.ts';
import type { JsonObject } from './values.ts';

/** What a caller may ask of a fitted agent answer (SPEC §13): any of them asks for fitting. */
export interface FitAsk {
  readonly view?: View;
  readonly budget?: number;
  /** For view `section`: the top-level keys of each value to show, separated by commas. */
  readonly query?: string;
}

export interface FitEntry {
  readonly id: string;
  readonly value: JsonObject;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A stub entry has no value: its id and times say which record to get whole. */
export type Shown<E extends FitEntry> = Omit<E, 'value'> & { readonly value?: JsonObject };

export interface FittedEntries<E extends FitEntry> {
  readonly entries: Shown<E>[];
  readonly fit: FitNote;
  /** Records of the answer left out by a bound: ask again after the last one returned. */
  readonly more: boolean;
}

export const fitAsked = (ask: FitAsk): boolean => ask.view !== undefined || ask.budget !== undefined || (ask.query !== undefined && ask.query !== '');

const LONGEST = 120;
const n = (x: number) => x.toLocaleString('en-US');

/** One line's gist of a value: a string's first sentence, a nested value's shape. */
const gist = (v: unknown): unknown => {
  if (typeof v === 'string') {
    const s = firstSentence([v]) || v;
    return [...s].length <= LONGEST ? s : `${[...s].slice(0, LONGEST).join('')}…`;
  }
  if (Array.isArray(v)) return `[${v.length} ${v.length === 1 ? 'item' : 'items'}]`;
  if (v !== null && typeof v === 'object') return `{${Object.keys(v).length} keys}`;
  return v;
};

const keysOf = (query: string | undefined) =>
  (query ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');

const render = <E extends FitEntry>(e: E, view: View, keys: readonly string[]): Shown<E> => {
  if (view === 'full') return e;
  if (view === 'stub') return Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'value')) as Shown<E>;
  const value: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.value)) {
    if (view === 'section' && keys.includes(k)) value[k] = v;
    if (view === 'summary') value[k] = gist(v);
  }
  return { ...e, value: value as JsonObject };
};

const VIEW_SAYS: Record<View, string> = {
  full: 'whole',
  section: 'only the keys the query names',
  summary: "as a summary (each string's first sentence, nested values by their shape)",
  stub: 'without its value (id and times only)',
};

/**
 * An agent's page of records fitted to the bounds of SPEC §13, keeping whole records: the
 * view asked for (else `full`, or `section` when there is a query) for as many records, oldest
 * first, as fit; a view in which not even the first record fits falls to the next smaller one,
 * never to a bigger one, down to the stub. `text` is how the answer is written out (a JSON
 * array, or JSON Lines), so the note counts what the caller really gets.
 */
export const fitEntries = <E extends FitEntry>(
  all: readonly E[],
  ask: FitAsk,
  text: (shown: readonly Shown<E>[]) => string,
  name: string,
): FittedEntries<E> => {
  // A budget above CAP is answered as CAP (SPEC §13), never refused.
  const asked = normalBudget(ask.budget);
  const budget = asked === undefined ? undefined : Math.min(asked, CAP);
  const bounds = boundsOf({ ...(budget === undefined ? {} : { budget }) });
  const keys = keysOf(ask.query);
  // Record by record: an export of 10,000 values of 64 KiB is never written out as one text.
  const size = all.length <= 100 ? measure(text(all)).tokens : all.reduce((sum, e) => sum + measure(text([e])).tokens, 0);
  const first = ask.view ?? (keys.length > 0 ? 'section' : 'full');
  const reasons: string[] = [];
  for (const view of [...VIEWS].reverse().slice(VIEWS.length - 1 - VIEWS.indexOf(first))) {
    // A section is shown only when a query names keys some record holds; passing it on the way
    // down from `full` without a query is no reason worth telling.
    if (view === 'section' && keys.length === 0) {
      if (first === 'section') reasons.push('view "section" needs a query naming the keys to show');
      continue;
    }
    if (view === 'section' && !all.some((e) => keys.some((k) => k in e.value))) {
      reasons.push(`no record holds a key the query '${ask.query}' names`);
      continue;
    }
    const shown = all.map((e) => render(e, view, keys));
    const fitting = fittingPrefix(shown, bounds, text);
    if (fitting === 0 && shown.length > 0 && view !== 'stub') {
      const alone = measure(text(shown.slice(0, 1))).tokens;
      reasons.push(
        `one record ${view === 'full' ? 'whole' : `in view "${view}"`} (${n(alone)} tokens) is over ${phraseOf(broken(bounds, measure(text(shown.slice(0, 1)))))}`,
      );
      continue;
    }
    // The stub is the floor (SPEC §13): a page always shows at least one record, so reading on
    // with its `next` moves past it; a stub alone over the budget is answered anyway and says so.
    const count = Math.max(fitting, Math.min(1, shown.length));
    const entries = shown.slice(0, count);
    const tokens = measure(text(entries)).tokens;
    const left = all.length - count;
    const said: string[] = [];
    if (view !== 'full')
      said.push(`Each record is shown ${VIEW_SAYS[view]}${reasons.length > 0 ? ` because ${reasons.join(', and ')}` : `, as view "${view}" was asked for`}.`);
    if (fitting < count)
      said.push(
        `The first record's stub alone (${n(tokens)} tokens) is over ${phraseOf(broken(bounds, measure(text(entries))))}; it is answered anyway as the floor: get it by its id to read its value.`,
      );
    if (left > 0) {
      const cutBy = fitting < count ? broken(bounds, measure(text(entries))) : broken(bounds, measure(text(shown.slice(0, count + 1))));
      said.push(
        `${n(left)} of the ${n(all.length)} records of ${name} were left out because the next one would go over ${phraseOf(cutBy)}; ask again with the answer's next to read on.`,
      );
    }
    return {
      entries,
      more: left > 0,
      fit: { view, budget: budget ?? null, size, tokens, omitted: said.length > 0 ? said.join(' ') : 'Nothing was left out.' },
    };
  }
  /* c8 ignore next */
  throw new Error('the stub view always answers');
};

/** The most records, from the first, whose text breaks no bound (a count found by bisection). */
const fittingPrefix = <E extends FitEntry>(shown: readonly Shown<E>[], bounds: readonly Bound[], text: (s: readonly Shown<E>[]) => string) => {
  const fits = (k: number) => broken(bounds, measure(text(shown.slice(0, k)))).length === 0;
  // Characters bound every answer (CAP_CHARS), so only that many records need weighing at all.
  const maxChars = Math.min(...bounds.filter((b) => b.unit === 'characters').map((b) => b.limit));
  let hi = 0;
  for (let chars = 0; hi < shown.length; hi++) {
    chars += JSON.stringify(shown[hi]).length;
    if (chars > maxChars) break;
  }
  let lo = 0;
  if (fits(hi)) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
};
