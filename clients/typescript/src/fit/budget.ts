/** The context a model is taken to have when a budget is filled in for it. */
export const CONTEXT = 128_000;
export const MIN_BUDGET = 500;
export const MAX_BUDGET = 8_000;

/**
 * The budget the runtime fills in when a model leaves it out: a quarter of what `used` (the newest
 * request and its answer, in tokens) leaves of a 128,000-token context, at least 500 and at most
 * 8,000; half of that once the job tree has spent the warning share of its budget (`warned`).
 */
export const defaultBudget = ({ used, warned }: { used: number; warned: boolean }): number => {
  const spent = Number.isFinite(used) && used > 0 ? used : 0;
  const left = Math.max(0, CONTEXT - spent);
  const budget = Math.min(MAX_BUDGET, Math.max(MIN_BUDGET, Math.floor(left / 4)));
  return warned ? Math.floor(budget / 2) : budget;
};
