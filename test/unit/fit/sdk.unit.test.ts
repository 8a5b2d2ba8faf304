import { describe, expect, it } from 'vitest';
import * as domain from '../../../clients/typescript/src/fit/index.ts';
import * as sdk from 'custodian/fit';

// Tool authors import the library by the package's name; it must be the same functions.
describe('custodian/fit', () => {
  it('exports the fit library by the package name', () => {
    expect(Object.keys(sdk).sort()).toEqual(Object.keys(domain).sort());
    for (const key of Object.keys(domain) as Array<keyof typeof domain>) expect(sdk[key]).toBe(domain[key]);
  });

  it('lets a tool adopt the convention: unfitted without the arguments, fitted with them', () => {
    const page = '# Page\n\nFirst part.\n\n## Details\n\nMore words here.\n';
    const answer = (args: { view?: sdk.View; budget?: number; query?: string }) =>
      sdk.wanted(args) ? sdk.fitDocument(page, { ...args, head: 'docs/page.md', name: 'page.md' }) : { text: page, fit: null };
    expect(answer({})).toEqual({ text: page, fit: null });
    const fitted = answer({ query: 'Details', budget: sdk.defaultBudget({ used: 10_000, warned: false }) });
    expect(fitted.text).toBe('docs/page.md\n## Details\n\nMore words here.');
    expect(fitted.fit).toMatchObject({ view: 'section', budget: 8000, tokens: sdk.weigh(fitted.text) });
  });
});
