// `custodian/fit`: the fitting convention for tool authors. A tool that takes the
// optional `view`, `budget` and `query` arguments answers with the biggest part of its result that
// fits and a fit note saying what it left out (see docs/guides/agent-authors.md, "Fitting answers to a budget").
export {
  weigh,
  fitDocument,
  fitDiff,
  fitJson,
  jsonLines,
  linesOf,
  defaultBudget,
  wanted,
  VIEWS,
  CAP,
  CAP_CHARS,
  CHARS_PER_TOKEN,
  charsOf,
  countChars,
  CONTEXT,
  MIN_BUDGET,
  MAX_BUDGET,
} from '../domain/fit/index.ts';
export type { View, FitOptions, FitNote, Fitted } from '../domain/fit/index.ts';
