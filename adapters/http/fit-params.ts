import { z } from 'zod';
import { CAP } from '../../clients/typescript/src/fit/bounds.ts';
import { VIEWS, type View } from '../../clients/typescript/src/fit/types.ts';

const BUDGET_REASON = 'a budget is a whole number of tokens, 0 or more';
/** A budget above CAP is answered as CAP, never refused: on every fitted route alike. */
const capped = (budget: number) => Math.min(budget, CAP);

/** A JSON body's budget: a whole number ≥ 0, read as at most CAP. */
export const JsonBudget = z.number(BUDGET_REASON).nonnegative(BUDGET_REASON).refine(Number.isInteger, BUDGET_REASON).transform(capped);
/** A query string's budget: text of a whole number ≥ 0, read as at most CAP. */
export const TextBudget = z.coerce.number(BUDGET_REASON).nonnegative(BUDGET_REASON).refine(Number.isInteger, BUDGET_REASON).transform(capped);

/** The three fit parameters of SPEC §13 as HTTP carries them (a query string's budget is text). */
export const FitParams = {
  view: z.enum(VIEWS as [View, ...View[]]).optional(),
  budget: TextBudget.optional(),
  query: z.string().min(1).max(500).optional(),
};
