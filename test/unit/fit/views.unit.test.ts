import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitDocument } from '../../../clients/typescript/src/fit/document.ts';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';

// Given a Markdown page of three parts, when it is fitted with a view, budget or query, then the
// answer is the view the rules of SPEC §13 pick, with its fit note.
const part = (title: string, sentence: string, filler: string, lines: number) =>
  [`## ${title}`, '', sentence, ...Array.from({ length: lines }, (_, i) => `${filler} line ${i + 1} of ${title}.`), ''].join('\n');
const page = [
  '# Release notes',
  '',
  'These are the notes of every release.',
  '',
  part('Install', 'Run the installer as root.', 'Install step', 30),
  part('Upgrade', 'Stop the service before upgrading.', 'Upgrade step', 60),
  part('Known limits', 'Files are at most 32 MiB.', 'Limit', 20),
].join('\n');
const size = weigh(page);

describe('views', () => {
  it('without view, budget or query answers the whole text unfitted', () => {
    expect(fitDocument(page)).toEqual({ text: page, fit: null });
    expect(fitDocument(page, { chars: 10, head: 'x', name: 'y' })).toEqual({ text: page, fit: null });
  });

  it('full: the whole text when it fits, and the note says nothing was left out', () => {
    const r = fitDocument(page, { budget: size + 10 });
    expect(r.text).toBe(page);
    expect(r.fit).toEqual({ view: 'full', budget: size + 10, size, tokens: size, omitted: 'Nothing was left out.' });
  });

  it('section: the whole part the query names, and the note says the rest was left out', () => {
    const r = fitDocument(page, { query: 'Install', budget: 2000 });
    expect(r.fit?.view).toBe('section');
    expect(r.text.startsWith('## Install\n')).toBe(true);
    expect(r.text).toContain('Install step line 30 of Install.');
    expect(r.text).not.toContain('## Upgrade');
    expect(r.fit?.tokens).toBe(weigh(r.text));
    expect(r.fit?.omitted).toMatch(
      /^This is the section matching 'Install' \(lines \d+-\d+\) of the document; the rest \([\d,]+ tokens\) was left out, as the query asked for this part only\.$/,
    );
  });

  it("summary: the outline with each part's first sentence, cut from the text", () => {
    const r = fitDocument(page, { view: 'summary', name: 'NOTES.md' });
    expect(r.fit?.view).toBe('summary');
    expect(r.text.split('\n').slice(1)).toEqual([
      '# Release notes: These are the notes of every release.',
      '## Install: Run the installer as root.',
      '## Upgrade: Stop the service before upgrading.',
      '## Known limits: Files are at most 32 MiB.',
    ]);
    expect(r.text.split('\n')[0]).toBe(
      `NOTES.md: Markdown, ${size.toLocaleString('en-US')} tokens, ${page.split('\n').length - 1} lines, ${page.length.toLocaleString('en-US')} characters; 4 parts.`,
    );
    expect(r.fit?.omitted).toContain('as view "summary" was asked for');
  });

  it('stub: size and outline, and how to ask for more', () => {
    const r = fitDocument(page, { view: 'stub' });
    expect(r.fit?.view).toBe('stub');
    expect(r.text).toContain(`${size.toLocaleString('en-US')} tokens`);
    expect(r.text).toMatch(/^## Upgrade \(lines \d+-\d+\)$/m);
    expect(r.text).toContain('To read more: ask for a bigger budget, or for view "section" with a query (a heading or a line range such as 120-180).');
    expect(r.text).not.toContain('Stop the service');
  });

  it('view left out: the biggest that fits, full, then summary, then stub', () => {
    expect(fitDocument(page, { budget: size }).fit?.view).toBe('full');
    const summary = fitDocument(page, { view: 'summary' }).fit!.tokens;
    expect(fitDocument(page, { budget: size - 1 }).fit?.view).toBe('summary');
    expect(fitDocument(page, { budget: summary }).fit?.view).toBe('summary');
    expect(fitDocument(page, { budget: summary - 1 }).fit?.view).toBe('stub');
  });

  it('view left out with a query: section first, never full', () => {
    const r = fitDocument(page, { query: 'Known limits', budget: size * 10 });
    expect(r.fit?.view).toBe('section');
  });

  it('falls from full to section when a query names a part that fits', () => {
    const r = fitDocument(page, { view: 'full', query: 'Install', budget: 600 });
    expect(r.fit?.view).toBe('section');
    expect(r.fit?.omitted).toContain(`because the whole (${size.toLocaleString('en-US')} tokens) is over the budget of 600 tokens`);
  });

  it('falls from full to summary, naming the budget', () => {
    const r = fitDocument(page, { view: 'full', budget: 300 });
    expect(r.fit?.view).toBe('summary');
    expect(r.fit?.omitted).toContain(`because the whole (${size.toLocaleString('en-US')} tokens) is over the budget of 300 tokens`);
  });

  it('falls from section to summary when the section is too big', () => {
    const upgrade = fitDocument(page, { query: 'Upgrade' }).fit!.tokens;
    const r = fitDocument(page, { query: 'Upgrade', budget: upgrade - 1 });
    expect(r.fit?.view).toBe('summary');
    expect(r.fit?.omitted).toContain(
      `because the section matching 'Upgrade' (${upgrade.toLocaleString('en-US')} tokens) is over the budget of ${upgrade - 1} tokens`,
    );
  });

  it('falls from section to summary when nothing matches, or no query was given', () => {
    const none = fitDocument(page, { query: 'Uninstall' });
    expect(none.fit?.view).toBe('summary');
    expect(none.fit?.omitted).toContain("because nothing in it matches the query 'Uninstall'");
    const bare = fitDocument(page, { view: 'section' });
    expect(bare.fit?.view).toBe('summary');
    expect(bare.fit?.omitted).toContain('because no query named a section');
  });

  it('falls from summary to stub, naming the bound', () => {
    const r = fitDocument(page, { view: 'summary', budget: 60 });
    expect(r.fit?.view).toBe('stub');
    expect(r.fit?.omitted).toMatch(/because the summary \([\d,]+ tokens\) is over the budget of 60 tokens/);
    expect(r.fit!.tokens).toBeLessThanOrEqual(60);
  });

  it('never falls to a bigger view: a small view asked for stays small with room to spare', () => {
    expect(fitDocument(page, { view: 'summary', budget: size * 10 }).fit?.view).toBe('summary');
    expect(fitDocument(page, { view: 'stub', budget: size * 10 }).fit?.view).toBe('stub');
    expect(fitDocument(page, { view: 'section', query: 'nothing like it', budget: size * 10 }).fit?.view).toBe('summary');
  });

  it('the stub is the floor: it says how big the whole is even when its outline is cut', () => {
    const r = fitDocument(page, { budget: 45 });
    expect(r.fit?.view).toBe('stub');
    expect(r.fit!.tokens).toBeLessThanOrEqual(45);
    expect(r.text).toContain(`${size.toLocaleString('en-US')} tokens`);
    expect(r.fit?.omitted).toMatch(/the outline shows \d of its 4 parts|the stub itself was cut short/);
  });

  it('below what even the stub needs, the stub is cut short to fit, and the note says so', () => {
    const r = fitDocument(page, { budget: 8 });
    expect(r.fit?.view).toBe('stub');
    expect(r.fit!.tokens).toBeLessThanOrEqual(8);
    expect(r.text.length).toBeLessThanOrEqual(64);
    expect(r.fit?.omitted).toContain('the stub itself was cut short to fit the budget of 8 tokens');
  });

  it('puts the head on top of every view and counts it', () => {
    const r = fitDocument(page, { view: 'stub', head: 'docs/NOTES.md', name: 'NOTES.md' });
    expect(r.text.startsWith('docs/NOTES.md\nNOTES.md: Markdown')).toBe(true);
    const full = fitDocument(page, { budget: 100_000, head: 'docs/NOTES.md' });
    expect(full.text).toBe(`docs/NOTES.md\n${page}`);
    expect(full.fit?.size).toBe(weigh(full.text));
  });

  it('cuts plain text into runs of lines, and source code into definitions', () => {
    const log = Array.from({ length: 100 }, (_, i) => `2026-11-30T00:00:${String(i % 60).padStart(2, '0')}Z INFO request ${i} done.`).join('\n');
    expect(fitDocument(log, { view: 'stub' }).text).toContain('lines 1-40\nlines 41-80\nlines 81-100');
    const source = readFileSync(new URL('../../../clients/typescript/src/fit/budget.ts', import.meta.url), 'utf8');
    const summary = fitDocument(source, { view: 'summary', name: 'budget.ts' }).text;
    expect(summary).toContain(
      'export const defaultBudget = ({ used, warned }: { used: number; warned: boolean }): number => { — The budget the runtime fills in when a model leaves it out: a quarter of what `used`',
    );
    expect(summary).toContain('export const CONTEXT = 128_000; — The context a model is taken to have when a budget is filled in for it.');
  });
});

describe('views of untyped input', () => {
  it('takes a view that is none of the four as left out', () => {
    const r = fitDocument('# A\n\nShort.\n', { view: 'everything' as never, budget: 1000 });
    expect(r.fit?.view).toBe('full');
  });
});
