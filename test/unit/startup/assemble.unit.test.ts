import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';
import { assembleStartupText, heading } from '../../../domain/startup/assemble.ts';

const answer = fc.record({
  plugin: fc.constantFrom('a', 'b', 'c', 'd'),
  entries: fc.array(fc.record({ text: fc.string({ minLength: 1, maxLength: 80 }) }), { maxLength: 6 }),
});

describe('assembleStartupText', () => {
  it('never exceeds the budget, and counts what it returns with weigh', () => {
    fc.assert(
      fc.property(fc.array(answer, { maxLength: 5 }), fc.integer({ min: 0, max: 300 }), (answers, budget) => {
        const a = assembleStartupText(['a', 'b', 'c', 'd'], answers, budget);
        expect(a.tokens).toBe(weigh(a.text));
        expect(a.tokens).toBeLessThanOrEqual(budget);
      }),
    );
  });

  it('keeps one prefix of the entries in order: once one does not fit, nothing after it is kept', () => {
    fc.assert(
      fc.property(fc.array(answer, { maxLength: 5 }), fc.integer({ min: 0, max: 300 }), (answers, budget) => {
        const a = assembleStartupText(['a', 'b', 'c', 'd'], answers, budget);
        const cut = a.left_out.findIndex((l) => l.reason === 'budget');
        if (cut === -1) return;
        const order = ['a', 'b', 'c', 'd'];
        const after = order.slice(order.indexOf(a.left_out[cut]!.plugin) + 1);
        expect(a.kept.filter((k) => after.includes(k.plugin))).toEqual([]);
      }),
    );
  });

  it('given a plain text answer, a failed plugin and a refused one, when assembled, then only the text is kept', () => {
    const a = assembleStartupText(
      ['a', 'b', 'c'],
      [
        { plugin: 'a', text: 'Deploy on Wednesdays.' },
        { plugin: 'b', error: 'timeout' },
        { plugin: 'c', entries: [{ text: 'x' }] },
      ],
      1000,
      ['c'],
    );
    expect(a.text).toBe(`${heading('a')}\n\nDeploy on Wednesdays.`);
    expect(a.kept).toEqual([{ plugin: 'a', entries: 1 }]);
    expect(a.left_out).toEqual([
      { plugin: 'b', entries: 0, reason: 'failed' },
      { plugin: 'c', entries: 1, reason: 'refused' },
    ]);
  });

  it('given a budget smaller than a heading, when assembled, then nothing is kept and every entry is named', () => {
    const a = assembleStartupText(['a'], [{ plugin: 'a', entries: [{ text: 'one' }, { text: 'two' }] }], 3);
    expect(a).toEqual({ text: '', kept: [], left_out: [{ plugin: 'a', entries: 2, reason: 'budget' }], tokens: 0 });
  });
});
