import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitAsked, fitEntries, type FitEntry } from '../../../domain/collections/fit.ts';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';

const entry = (i: number, value: Record<string, unknown>): FitEntry => ({
  id: `r${i}`,
  value: value as FitEntry['value'],
  createdAt: 1000 + i,
  updatedAt: 1000 + i,
});
const asJson = (shown: readonly unknown[]) => JSON.stringify(shown);
const page = Array.from({ length: 30 }, (_, i) =>
  entry(i, { status: 'waiting', question: `Question ${i} about the bike. It has more words after the first sentence, ${'many '.repeat(40)}`, meta: { n: i } }),
);

describe('fitting an agent page (SPEC §13)', () => {
  it('asks for fitting only with a view, a budget or a query', () => {
    expect(fitAsked({})).toBe(false);
    expect(fitAsked({ query: '' })).toBe(false);
    expect(fitAsked({ budget: 100 })).toBe(true);
    expect(fitAsked({ view: 'stub' })).toBe(true);
    expect(fitAsked({ query: 'status' })).toBe(true);
  });

  it('given a page that fits, when fitted with a big budget, then every record is whole and nothing is left out', () => {
    const fitted = fitEntries(page.slice(0, 3), { budget: 8_000 }, asJson, 'the page');
    expect(fitted.entries).toEqual(page.slice(0, 3));
    expect(fitted.more).toBe(false);
    expect(fitted.fit).toEqual({
      view: 'full',
      budget: 8_000,
      size: weigh(asJson(page.slice(0, 3))),
      tokens: weigh(asJson(page.slice(0, 3))),
      omitted: 'Nothing was left out.',
    });
  });

  it('given a page over the budget, then whole records oldest first as many as fit, more, and the note names the budget', () => {
    const fitted = fitEntries(page, { budget: 500 }, asJson, 'the page');
    expect(fitted.entries.length).toBeGreaterThan(0);
    expect(fitted.entries.length).toBeLessThan(page.length);
    expect(fitted.entries).toEqual(page.slice(0, fitted.entries.length));
    expect(weigh(asJson(fitted.entries))).toBeLessThanOrEqual(500);
    // One more record would not have fitted.
    expect(weigh(asJson(page.slice(0, fitted.entries.length + 1)))).toBeGreaterThan(500);
    expect(fitted.more).toBe(true);
    expect(fitted.fit.view).toBe('full');
    expect(fitted.fit.omitted).toContain(`${page.length - fitted.entries.length} of the 30 records of the page were left out`);
    expect(fitted.fit.omitted).toContain('the budget of 500 tokens');
  });

  it('given a budget below one whole record, then the view falls to the summary, never bigger, and says why', () => {
    const big = [entry(0, { question: `First sentence here. ${'word '.repeat(2_000)}`, status: 'waiting' })];
    const fitted = fitEntries(big, { budget: 100 }, asJson, 'the page');
    expect(fitted.fit.view).toBe('summary');
    expect(fitted.entries).toEqual([{ ...big[0], value: { question: 'First sentence here.', status: 'waiting' } }]);
    expect(fitted.fit.omitted).toMatch(/^Each record is shown as a summary .* because one record whole \([\d,]+ tokens\) is over the budget of 100 tokens/);
  });

  it('a section shows only the keys the query names; a query naming no key falls to the summary', () => {
    const fitted = fitEntries(page.slice(0, 2), { query: 'status, meta' }, asJson, 'the page');
    expect(fitted.fit.view).toBe('section');
    expect(fitted.entries.map((e) => e.value)).toEqual([
      { status: 'waiting', meta: { n: 0 } },
      { status: 'waiting', meta: { n: 1 } },
    ]);
    const none = fitEntries(page.slice(0, 2), { view: 'section', query: 'nothing' }, asJson, 'the page');
    expect(none.fit.view).toBe('summary');
    expect(none.fit.omitted).toContain("no record holds a key the query 'nothing' names");
  });

  it('the stub shows ids and times without values', () => {
    const fitted = fitEntries(page.slice(0, 2), { view: 'stub' }, asJson, 'the page');
    expect(fitted.entries).toEqual([
      { id: 'r0', createdAt: 1000, updatedAt: 1000 },
      { id: 'r1', createdAt: 1001, updatedAt: 1001 },
    ]);
    expect(fitted.fit.omitted).toContain('as view "stub" was asked for');
  });

  it('given more records than a page (an export), then the size is still the whole estimate, within 2%', () => {
    const many = Array.from({ length: 150 }, (_, i) => page[i % page.length]!).map((e, i) => ({ ...e, id: `m${i}` }));
    const lines = (shown: readonly unknown[]) => shown.map((e) => `${JSON.stringify(e)}\n`).join('');
    const fitted = fitEntries(many, { budget: 1_000 }, lines, 'the export');
    expect(Math.abs(fitted.fit.size - weigh(lines(many)))).toBeLessThanOrEqual(weigh(lines(many)) * 0.02);
    expect(fitted.more).toBe(true);
  });

  it('property: whatever the budget, the answer keeps whole records in order, at least one, and breaks no bound unless it is one stub (the floor)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 30 }), (budget, count) => {
        const fitted = fitEntries(page.slice(0, count), { budget }, asJson, 'the page');
        const ids = fitted.entries.map((e) => e.id);
        expect(ids).toEqual(page.slice(0, ids.length).map((e) => e.id));
        expect(ids.length > 0 || count === 0).toBe(true);
        // (An empty page has nothing to cut: its few tokens are the answer's frame.)
        if (fitted.fit.tokens > budget && count > 0) {
          expect(fitted.fit.view).toBe('stub');
          expect(ids).toHaveLength(1);
          expect(fitted.fit.omitted).toContain('answered anyway as the floor');
        }
        expect(fitted.more).toBe(ids.length < count);
      }),
      { numRuns: 60 },
    );
  });
});
