import { z } from 'zod';
import { CAP } from '../../clients/typescript/src/fit/bounds.ts';
import { VIEWS, type View } from '../../clients/typescript/src/fit/types.ts';

const BUDGET_REASON = 'a budget is a whole number of tokens, 0 or more';
/** A budget above CAP is answered as CAP, never refused: on every fitted route alike. */
const capped = (budget: number) => Math.min(budget, CAP);

/** A JSON body's budget: a whole number ≥ 0, read as at most CAP (documented as an integer with no upper bound). */
export const JsonBudget = z
  .number(BUDGET_REASON)
  .nonnegative(BUDGET_REASON)
  .refine(Number.isInteger, BUDGET_REASON)
  .meta({ type: 'integer' })
  .transform(capped);
/**
 * A query string's budget: decimal text of a whole number ≥ 0 (an empty `budget=`,
 * `1e3` or `0.5` is refused, never read as a number), read as at most CAP.
 */
export const TextBudget = z.preprocess(
  (text, ctx) => {
    if (typeof text === 'string' && /^[0-9]{1,400}$/.test(text)) return capped(Number(text));
    // Already read (a JSON budget beside a records op, or a query string checked once before).
    if (typeof text === 'number') return Number.isInteger(text) ? capped(text) : text;
    ctx.addIssue({ code: 'custom', message: BUDGET_REASON });
    return z.NEVER;
  },
  z.number(BUDGET_REASON).min(0, BUDGET_REASON).refine(Number.isInteger, BUDGET_REASON).meta({ type: 'integer' }),
);

/** The three fit parameters of SPEC §13 as HTTP carries them (a query string's budget is text). */
export const FitParams = {
  view: z.enum(VIEWS as [View, ...View[]]).optional(),
  budget: TextBudget.optional(),
  query: z.string().min(1).max(500).optional(),
};
