import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAP, CAP_CHARS, charsOf, countChars } from '../../../clients/typescript/src/fit/bounds.ts';
import { fitDiff } from '../../../clients/typescript/src/fit/diff.ts';
import { fitDocument } from '../../../clients/typescript/src/fit/document.ts';
import { fitJson } from '../../../clients/typescript/src/fit/json.ts';
import { VIEWS, type FitOptions, type Fitted } from '../../../clients/typescript/src/fit/types.ts';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';

const dir = new URL('../../fixtures/fit-corpus/docs/', import.meta.url);
const corpus = readdirSync(dir)
  .sort()
  .map((name) => ({ name, text: readFileSync(new URL(name, dir), 'utf8') }));
const diffs = corpus.filter((d) => d.name.includes('-diff')).map((d) => d.text);

const word = fc.constantFrom('alpha', 'beta', 'Gamma', 'delta', 'über', '数据', 'x', '42', 'run.', 'end.');
const markdown = fc
  .array(
    fc.tuple(fc.integer({ min: 1, max: 3 }), fc.array(word, { minLength: 1, maxLength: 3 }), fc.array(fc.array(word, { maxLength: 12 }), { maxLength: 8 })),
    { maxLength: 8 },
  )
  .map((parts) => parts.map(([level, title, lines]) => [`${'#'.repeat(level)} ${title.join(' ')}`, ...lines.map((l) => l.join(' '))].join('\n')).join('\n\n'));
const document = fc.oneof(markdown, fc.constantFrom(...corpus.map((d) => d.text)), fc.string({ unit: 'grapheme', maxLength: 400 }));
const query = fc.oneof(
  fc.constantFrom('alpha', 'Gamma delta', 'x', 'Install', 'weigh', 'README.md', 'README.md#1', 'id', '[0]'),
  fc.tuple(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 120 })).map(([a, b]) => `${a}-${b}`),
  fc.string({ maxLength: 12 }),
);
const options = fc.record(
  {
    view: fc.constantFrom(...VIEWS),
    budget: fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 200_000 })),
    query,
    chars: fc.integer({ min: 0, max: 40_000 }),
    head: fc.constantFrom('docs/page.md', 'https://example.org/a', ''),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<FitOptions>;

const RANK: Record<string, number> = { stub: 0, summary: 1, section: 2, full: 3 };

/** Every bound of SPEC §13, checked on what came back. */
const withinBounds = (r: Fitted, o: FitOptions, whole: string): boolean => {
  if (r.fit === null) return o.view === undefined && o.budget === undefined && (o.query === undefined || o.query === '') && r.text === whole;
  const tokens = weigh(r.text);
  const chars = countChars(r.text);
  const budget = o.budget === undefined ? Infinity : o.budget;
  return (
    r.fit.tokens === tokens &&
    tokens <= Math.min(budget, CAP) &&
    chars <= Math.min(CAP_CHARS, o.budget === undefined ? Infinity : charsOf(o.budget), o.chars === undefined ? Infinity : o.chars)
  );
};

const fitters: Array<[string, fc.Arbitrary<unknown>, (whole: never, o: FitOptions) => Fitted, (whole: never) => string]> = [
  ['fitDocument', document, fitDocument, (t: string) => t],
  ['fitDiff', fc.constantFrom(...diffs), fitDiff, (t: string) => t],
  ['fitJson', fc.jsonValue(), fitJson, (v: unknown) => JSON.stringify(v)],
];

describe.each(fitters)('%s properties', (_name, wholes, fit, text) => {
  it('never exceeds any bound: budget (by weigh), CAP, CAP_CHARS, charsOf, chars', () => {
    fc.assert(
      fc.property(wholes, options, (whole, o) => {
        const r = fit(whole as never, o);
        // An unfitted JSON answer is its lines form, not its compact text: compare what was fitted.
        const expected = _name === 'fitJson' ? r.text : text(whole as never);
        expect(withinBounds(r, o, expected)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('gives the same answer for the same input', () => {
    fc.assert(
      fc.property(wholes, options, (whole, o) => {
        expect(fit(whole as never, { ...o })).toEqual(fit(whole as never, { ...o }));
      }),
      { numRuns: 80 },
    );
  });

  it('never returns a bigger view for a smaller budget', () => {
    fc.assert(
      fc.property(wholes, options, fc.integer({ min: 0, max: 6000 }), fc.integer({ min: 0, max: 6000 }), (whole, o, a, b) => {
        const small = fit(whole as never, { ...o, budget: Math.min(a, b) });
        const big = fit(whole as never, { ...o, budget: Math.max(a, b) });
        expect(RANK[small.fit!.view]!).toBeLessThanOrEqual(RANK[big.fit!.view]!);
      }),
      { numRuns: 80 },
    );
  });
});
