// The fitting library: weigh, the three fit functions, the bounds and the default budget. Pure;
// the package exports it as `@custodian/sdk/fit` (the service as `custodian/fit`).
export { weigh } from './weigh.ts';
export { fitDocument } from './document.ts';
export { fitDiff } from './diff.ts';
export { fitJson, jsonLines } from './json.ts';
export { defaultBudget, CONTEXT, MIN_BUDGET, MAX_BUDGET } from './budget.ts';
export { CAP, CAP_CHARS, CHARS_PER_TOKEN, charsOf, countChars } from './bounds.ts';
export { VIEWS, wanted } from './types.ts';
export { linesOf } from './shape.ts';
export type { View, FitOptions, FitNote, Fitted } from './types.ts';
