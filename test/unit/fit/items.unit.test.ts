import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitItems, type ItemsSpec } from '../../../clients/typescript/src/fit/items.ts';
import { VIEWS } from '../../../clients/typescript/src/fit/types.ts';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';

interface Item {
  readonly id: number;
  readonly body: string;
}

const spec = (items: readonly Item[]): ItemsSpec<Item> => ({
  items,
  full: (i) => i,
  summary: (i) => ({ id: i.id }),
  label: (i) => `item ${i.id}`,
  matches: (i, q) => String(i.id) === q,
  name: 'the items',
  unit: 'item',
  more: (next) => `ask from ${next.id}`,
  queries: 'an id',
});

const items = fc.array(fc.record({ id: fc.nat(1000), body: fc.string({ maxLength: 300 }) }), { maxLength: 30 });
const rank = (v: string) => VIEWS.indexOf(v as (typeof VIEWS)[number]);

describe('fitItems (whole items under a budget)', () => {
  it('given items, when fitted to any budget, then what it returns never exceeds the budget', () => {
    fc.assert(
      fc.property(items, fc.nat(2000), (xs, budget) => {
        const f = fitItems(spec(xs), { budget });
        const returned = f.outline ?? (f.rendered.length > 0 ? JSON.stringify(f.rendered) : '');
        expect(weigh(returned)).toBeLessThanOrEqual(budget);
        expect(f.fit.tokens).toBeLessThanOrEqual(budget);
      }),
      // An empty list under a zero budget: nothing returned, nothing weighed.
      { examples: [[[], 0]] },
    );
  });

  it('given the same items, a smaller budget never gives a bigger view or more items', () => {
    fc.assert(
      fc.property(items, fc.nat(2000), fc.nat(2000), (xs, a, b) => {
        const [small, big] = a <= b ? [a, b] : [b, a];
        const s = fitItems(spec(xs), { budget: small });
        const l = fitItems(spec(xs), { budget: big });
        expect(rank(s.view)).toBeLessThanOrEqual(rank(l.view));
        if (s.view === l.view) expect(s.shown.length).toBeLessThanOrEqual(l.shown.length);
        expect(fitItems(spec(xs), { budget: small })).toEqual(s);
      }),
    );
  });

  it('given a prefix cut, then the note names the budget and how to read on', () => {
    const xs = Array.from({ length: 10 }, (_, id) => ({ id, body: 'word '.repeat(40) }));
    const f = fitItems(spec(xs), { budget: 150 });
    expect(f.view).toBe('full');
    expect(f.more).toBe(true);
    expect(f.shown.length).toBeGreaterThan(0);
    expect(f.fit.omitted).toContain('the budget of 150 tokens');
    expect(f.fit.omitted).toContain(`ask from ${f.shown.length}`);
  });

  it('given a view asked for that does not fit, then it falls to a smaller one and says why', () => {
    const xs = [{ id: 1, body: 'word '.repeat(400) }];
    const f = fitItems(spec(xs), { view: 'full', budget: 50 });
    expect(f.view).toBe('summary');
    expect(f.fit.omitted).toContain('The full view was too big for the budget of 50 tokens');
  });

  it('given no budget, then the cap still bounds the answer', () => {
    const xs = Array.from({ length: 40 }, (_, id) => ({ id, body: 'lorem ipsum dolor '.repeat(1000) }));
    const f = fitItems(spec(xs), { view: 'full' });
    expect(f.fit.budget).toBeNull();
    expect(f.fit.tokens).toBeLessThanOrEqual(50_000);
    expect(f.more).toBe(true);
    expect(f.fit.omitted).toMatch(/CAP/);
  });
});
