import type { FitOptions } from './types.ts';
import { weigh } from './weigh.ts';

/** At most this many tokens in any fitted answer, whatever the budget. */
export const CAP = 50_000;
/** At most this many characters in any fitted answer, whatever the budget. */
export const CAP_CHARS = 200_000;
/** Characters allowed for each token of the budget. */
export const CHARS_PER_TOKEN = 8;

/** The characters a budget allows: 8 per token. */
export const charsOf = (budget: number): number => budget * CHARS_PER_TOKEN;

/** Characters as a reader counts them: code points, so an emoji is one. */
export const countChars = (text: string): number => {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const h = text.charCodeAt(i - 1);
      if (h >= 0xd800 && h <= 0xdbff) n--;
    }
  }
  return n;
};

export type BoundName = 'budget' | 'CAP' | 'charsOf' | 'CAP_CHARS' | 'chars';

export interface Bound {
  readonly name: BoundName;
  readonly unit: 'tokens' | 'characters';
  readonly limit: number;
  /** How a note names it: "the budget of 2,000 tokens". */
  readonly phrase: string;
}

const n = (x: number): string => x.toLocaleString('en-US');

/** A budget as the fit functions take it: a whole number ≥ 0, or none. */
export const normalBudget = (budget: number | undefined): number | undefined =>
  budget === undefined || budget === Infinity ? undefined : Number.isFinite(budget) && budget > 0 ? Math.floor(budget) : 0;

/** Every bound that applies to one answer, the tightest of each unit first. */
export const boundsOf = (options: Pick<FitOptions, 'budget' | 'chars'>): Bound[] => {
  const budget = normalBudget(options.budget);
  const bounds: Bound[] = [{ name: 'CAP', unit: 'tokens', limit: CAP, phrase: `the cap of ${n(CAP)} tokens (CAP)` }];
  if (budget !== undefined) {
    bounds.push({ name: 'budget', unit: 'tokens', limit: budget, phrase: `the budget of ${n(budget)} tokens` });
    bounds.push({
      name: 'charsOf',
      unit: 'characters',
      limit: charsOf(budget),
      phrase: `the ${n(charsOf(budget))} characters a budget of ${n(budget)} tokens allows (charsOf: ${CHARS_PER_TOKEN} per token)`,
    });
  }
  bounds.push({ name: 'CAP_CHARS', unit: 'characters', limit: CAP_CHARS, phrase: `the cap of ${n(CAP_CHARS)} characters (CAP_CHARS)` });
  if (options.chars !== undefined) {
    const chars = Number.isFinite(options.chars) && options.chars > 0 ? Math.floor(options.chars) : 0;
    bounds.push({ name: 'chars', unit: 'characters', limit: chars, phrase: `the caller's bound of ${n(chars)} characters (chars)` });
  }
  // Tightest first, so the note names the bound that really cut.
  return bounds.sort((a, b) => (a.unit === b.unit ? a.limit - b.limit : a.unit === 'tokens' ? -1 : 1));
};

export interface Measure {
  readonly tokens: number;
  readonly chars: number;
}

export const measure = (text: string): Measure => ({ tokens: weigh(text), chars: countChars(text) });

/** The bounds `text` breaks: at most the tightest of each unit. Empty when it fits. */
export const broken = (bounds: readonly Bound[], size: Measure): Bound[] => {
  const out: Bound[] = [];
  const tokens = bounds.find((b) => b.unit === 'tokens' && size.tokens > b.limit);
  const chars = bounds.find((b) => b.unit === 'characters' && size.chars > b.limit);
  if (tokens) out.push(tokens);
  if (chars) out.push(chars);
  return out;
};

/** "the budget of 2,000 tokens and the caller's bound of 500 characters (chars)". */
export const phraseOf = (bounds: readonly Bound[]): string => bounds.map((b) => b.phrase).join(' and ');
