import { describe, expect, it } from 'vitest';
import { CAP, CAP_CHARS, charsOf, countChars } from '../../../clients/typescript/src/fit/bounds.ts';
import { defaultBudget } from '../../../clients/typescript/src/fit/budget.ts';
import { fitDocument } from '../../../clients/typescript/src/fit/document.ts';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';

// Given a whole that breaks exactly one bound, when it is fitted, then it falls to a smaller view
// and the note names that bound.
const rule = '-'.repeat(80);
// Rules weigh little for their length: many characters, few tokens.
const ruled = (parts: number, lines: number) =>
  Array.from({ length: parts }, (_, p) => [`## Part ${p}`, `Part ${p} begins here.`, '', ...Array.from({ length: lines }, () => rule)].join('\n')).join('\n');
// Han text weighs more than a token a character: many tokens, few characters.
const han = (chars: number) => `# 概述\n${'这个服务把每一次修改都保存在日志中。'.repeat(Math.ceil(chars / 18)).slice(0, chars)}\n`;

describe('bounds', () => {
  it('charsOf allows 8 characters per budget token', () => {
    expect(charsOf(1000)).toBe(8000);
    expect(CAP).toBe(50_000);
    expect(CAP_CHARS).toBe(200_000);
  });

  it('the budget: a whole over it falls, and the note names the budget', () => {
    const text = [
      '# Notes',
      'The notes of the week.',
      ...Array.from({ length: 30 }, (_, i) => `Note ${i}: the service kept every change it was asked to keep.`),
    ].join('\n');
    expect(countChars(text)).toBeLessThan(charsOf(weigh(text) - 1));
    const r = fitDocument(text, { budget: weigh(text) - 1 });
    expect(r.fit?.view).toBe('summary');
    expect(r.fit?.omitted).toContain(`is over the budget of ${weigh(text) - 1} tokens.`);
  });

  it('charsOf: a whole within the budget in tokens but over 8 characters a token falls, naming charsOf', () => {
    const text = ruled(4, 30);
    const budget = weigh(text) + 50;
    expect(countChars(text)).toBeGreaterThan(charsOf(budget));
    const r = fitDocument(text, { budget });
    expect(r.fit?.view).toBe('summary');
    expect(r.fit?.omitted).toContain(
      `is over the ${charsOf(budget).toLocaleString('en-US')} characters a budget of ${budget.toLocaleString('en-US')} tokens allows (charsOf: 8 per token)`,
    );
    expect(r.fit?.omitted).not.toContain('the budget of');
    expect(countChars(r.text)).toBeLessThanOrEqual(charsOf(budget));
  });

  it('CAP: with no budget, a whole over 50,000 tokens falls, naming CAP', () => {
    const text = han(60_000);
    expect(weigh(text)).toBeGreaterThan(CAP);
    expect(countChars(text)).toBeLessThan(CAP_CHARS);
    const r = fitDocument(text, { view: 'full' });
    expect(r.fit?.view).toBe('summary');
    expect(r.fit?.budget).toBeNull();
    expect(r.fit?.omitted).toContain(`is over the cap of 50,000 tokens (CAP).`);
    expect(weigh(r.text)).toBeLessThanOrEqual(CAP);
  });

  it('CAP: a budget above it does not lift it', () => {
    const text = han(60_000);
    const r = fitDocument(text, { budget: 1_000_000 });
    expect(r.fit?.view).toBe('summary');
    expect(r.fit?.omitted).toContain('is over the cap of 50,000 tokens (CAP)');
  });

  it('CAP_CHARS: with no budget, a whole over 200,000 characters falls, naming CAP_CHARS', () => {
    const text = ruled(30, 90);
    expect(countChars(text)).toBeGreaterThan(CAP_CHARS);
    expect(weigh(text)).toBeLessThan(CAP);
    const r = fitDocument(text, { view: 'full' });
    expect(r.fit?.view).toBe('summary');
    expect(r.fit?.omitted).toContain('is over the cap of 200,000 characters (CAP_CHARS).');
    expect(r.text.split('\n')[1]).toBe('## Part 0: Part 0 begins here.');
  });

  it("chars: the caller's own bound falls the view, naming chars", () => {
    const text = ruled(2, 3);
    const r = fitDocument(text, { budget: 10_000, chars: 200 });
    expect(r.fit?.view).toBe('summary');
    expect(r.fit?.omitted).toContain("is over the caller's bound of 200 characters (chars).");
    expect(countChars(r.text)).toBeLessThanOrEqual(200);
  });

  it('names both bounds when a view breaks one of tokens and one of characters', () => {
    const text = ruled(3, 40);
    const r = fitDocument(text, { budget: 20, view: 'full' });
    expect(r.fit?.omitted).toContain('is over the budget of 20 tokens and the 160 characters a budget of 20 tokens allows (charsOf: 8 per token)');
  });

  it('counts characters as code points', () => {
    expect(countChars('a😀b')).toBe(3);
    expect(countChars('')).toBe(0);
  });
});

describe('defaultBudget', () => {
  it('is a quarter of what is left of 128,000 tokens, between 500 and 8,000', () => {
    expect(defaultBudget({ used: 0, warned: false })).toBe(8000);
    expect(defaultBudget({ used: 100_000, warned: false })).toBe(7000);
    expect(defaultBudget({ used: 120_000, warned: false })).toBe(2000);
    expect(defaultBudget({ used: 127_000, warned: false })).toBe(500);
    expect(defaultBudget({ used: 500_000, warned: false })).toBe(500);
  });

  it('halves once the job tree spent its warning share', () => {
    expect(defaultBudget({ used: 0, warned: true })).toBe(4000);
    expect(defaultBudget({ used: 120_000, warned: true })).toBe(1000);
    expect(defaultBudget({ used: 127_000, warned: true })).toBe(250);
  });

  it('takes a nonsense `used` as nothing used', () => {
    expect(defaultBudget({ used: -5, warned: false })).toBe(8000);
    expect(defaultBudget({ used: Number.NaN, warned: false })).toBe(8000);
  });
});
