import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VECTORS, vectorFiles } from '../../support/fit-vectors.ts';

// The checked-in vectors the Python and Go clients are held to equal what the TypeScript library
// answers now, byte for byte: a change to clients/typescript/src/fit that moves a number or a fitted text fails
// here until the vectors are written again (node --import tsx scripts/fit-vectors.ts).
describe('the shared fit vectors', () => {
  const files = vectorFiles();
  it.each(Object.keys(files))('%s equals what the library produces', (name) => {
    const checkedIn = readFileSync(new URL(name, VECTORS), 'utf8');
    expect(checkedIn === files[name], `test/fixtures/fit-vectors/${name} differs: run node --import tsx scripts/fit-vectors.ts`).toBe(true);
  });

  it('cover every view, the unfitted answer, and each bound as a reason', () => {
    const cases = JSON.parse(files['fit.json']!) as Array<{ fit: { view: string; omitted: string } | null }>;
    const views = new Set(cases.map((c) => c.fit?.view ?? 'none'));
    expect([...views].sort()).toEqual(['full', 'none', 'section', 'stub', 'summary']);
    const reasons = ['(CAP)', '(CAP_CHARS)', '(chars)', '(charsOf', 'the budget of', 'no query named', 'nothing in it matches', 'cut short'];
    for (const reason of reasons)
      expect(
        cases.some((c) => c.fit?.omitted.includes(reason)),
        reason,
      ).toBe(true);
    const corpus = JSON.parse(files['weigh.json']!) as { corpus: unknown[] };
    expect(corpus.corpus).toHaveLength(252);
  });
});
