import { phraseOf, type Bound } from './bounds.ts';
import type { View } from './types.ts';

/** Why a view was not the answer: too big for a bound, or nothing for it to show. */
export interface Refusal {
  readonly view: View;
  readonly tokens: number;
  readonly bounds: readonly Bound[];
}

export interface Story {
  readonly view: View;
  readonly name: string;
  readonly size: number;
  readonly tokens: number;
  readonly query: string | undefined;
  /** The section shown (section view). */
  readonly section?: string;
  /** The biggest view that was tried and did not fit. */
  readonly refused: Refusal | null;
  /** A section was wanted but no query was given, or nothing matched it. */
  readonly missing: 'no_query' | 'no_match' | null;
  /** The stub's outline shows this many of that many parts. */
  readonly outline?: { readonly shown: number; readonly total: number };
  /** The stub itself was cut short to fit these bounds. */
  readonly cut?: readonly Bound[];
  /** How a query names a part of this whole. */
  readonly queries: string;
}

const n = (x: number): string => x.toLocaleString('en-US');

const viewPhrase = (view: View, query: string | undefined): string =>
  view === 'full' ? 'the whole' : view === 'section' ? `the section matching '${query}'` : view === 'summary' ? 'the summary' : 'the stub';

/** The note's `omitted` sentence: what was left out and which bound (or which request) was why. */
export const omitted = (s: Story): string => {
  if (s.view === 'full') return 'Nothing was left out.';
  const rest = `${n(Math.max(0, s.size - s.tokens))} tokens`;
  const reasons: string[] = [];
  if (s.missing === 'no_query') reasons.push('no query named a section');
  if (s.missing === 'no_match') reasons.push(`nothing in it matches the query '${s.query}'`);
  if (s.refused) reasons.push(`${viewPhrase(s.refused.view, s.query)} (${n(s.refused.tokens)} tokens) is over ${phraseOf(s.refused.bounds)}`);
  const why =
    reasons.length > 0
      ? ` because ${reasons.join(', and ')}`
      : s.view === 'section'
        ? ', as the query asked for this part only'
        : `, as view "${s.view}" was asked for`;
  if (s.view === 'section') return `This is ${s.section} of ${s.name}; the rest (${rest}) was left out${why}.`;
  const read = `view "section" with a query (${s.queries})`;
  if (s.view === 'summary')
    return `This is the summary of ${s.name} (its outline with each part's first sentence); the rest (${rest}) was left out${why}. To read a part, ask for ${read}.`;
  const partial = s.outline && s.outline.shown < s.outline.total ? `; the outline shows ${n(s.outline.shown)} of its ${n(s.outline.total)} parts` : '';
  const cut = s.cut && s.cut.length > 0 ? `; the stub itself was cut short to fit ${phraseOf(s.cut)}` : '';
  return `This is the stub of ${s.name} (its size and outline); the rest (${rest}) was left out${why}${partial}${cut}. To read more, ask for a bigger budget, or for ${read}.`;
};
