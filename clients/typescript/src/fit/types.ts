/** The four views of a fitted answer, smallest first. */
export type View = 'stub' | 'summary' | 'section' | 'full';
export const VIEWS: readonly View[] = ['stub', 'summary', 'section', 'full'];

export interface FitOptions {
  /** The view asked for; left out, the biggest that fits. */
  readonly view?: View;
  /** The most tokens (as `weigh` counts them) the answer's text may take. */
  readonly budget?: number;
  /** What a section names: a heading, a definition's name, a path, `<path>#<n>`, a line range `120-180`. */
  readonly query?: string;
  /** The caller's own bound, in characters. */
  readonly chars?: number;
  /** A line put at the top of every view (a path, a URL, a title), counted in the bounds. */
  readonly head?: string;
  /** What the note and the stub call the whole ("README.md"); default "the document", "the diff", "the JSON". */
  readonly name?: string;
}

/** The fit note every fitted answer carries in its `fit` field. */
export interface FitNote {
  readonly view: View;
  /** The budget asked for, or null when only a view or a query was given. */
  readonly budget: number | null;
  /** The whole answer's estimate (its full view, head included), in tokens. */
  readonly size: number;
  /** What was returned, in tokens. */
  readonly tokens: number;
  /** What was left out and which bound (or which request) was the reason. */
  readonly omitted: string;
}

/**
 * What every fit function returns: the text to answer with and its note. `fit` is null only for
 * an unfitted answer (no view, budget or query): the whole text, as before the convention.
 */
export interface Fitted {
  readonly text: string;
  readonly fit: FitNote | null;
}

/** Whether a call asked for fitting at all: any of view, budget or query. */
export const wanted = (options: Pick<FitOptions, 'view' | 'budget' | 'query'> = {}): boolean =>
  options.view !== undefined || options.budget !== undefined || (options.query !== undefined && options.query !== '');
