import { describe, expect, it } from 'vitest';
import { fitDiff } from '../../../clients/typescript/src/fit/diff.ts';
import { fitJson } from '../../../clients/typescript/src/fit/json.ts';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';

// Given a diff or a JSON value too big for the budget, when it is fitted, then it falls like a
// document does, with units of its own: files and hunks, keys and items.

const file = (name: string, hunks: number) =>
  [
    `diff --git a/${name} b/${name}`,
    `--- a/${name}`,
    `+++ b/${name}`,
    ...Array.from({ length: hunks }, (_, h) => [
      `@@ -${h * 20 + 1},3 +${h * 20 + 1},3 @@ function part${h}()`,
      ' keep',
      `-const before${h} = ${h};`,
      `+const after${h} = ${h + 1};`,
      ' keep',
    ]).flat(),
  ].join('\n');
const diff = `${[file('src/one.ts', 6), file('src/two.ts', 3), file('docs/three.md', 2)].join('\n')}\n`;

describe('fitDiff', () => {
  it('answers the whole diff when it fits', () => {
    expect(fitDiff(diff, { budget: 5000 })).toMatchObject({ text: diff, fit: { view: 'full', omitted: 'Nothing was left out.' } });
  });

  it('falls to the summary: each file with its counts and hunk headers, naming the budget', () => {
    const r = fitDiff(diff, { budget: 250 });
    expect(r.fit?.view).toBe('summary');
    expect(r.text).toContain('src/one.ts (+6 −6, 6 hunks)\n  @@ -1,3 +1,3 @@ function part0()');
    expect(r.text).toContain('docs/three.md (+2 −2, 2 hunks)');
    expect(r.fit?.omitted).toContain(`because the whole (${weigh(diff)} tokens) is over the budget of 250 tokens`);
  });

  it('falls to the stub: the file list, naming the budget', () => {
    const r = fitDiff(diff, { budget: 120 });
    expect(r.fit?.view).toBe('stub');
    expect(r.text).toContain('3 files, +11 −11 lines');
    expect(r.text).toContain('src/two.ts (+3 −3, 3 hunks, lines');
    expect(r.text).not.toContain('@@');
  });

  it('answers a hunk asked for even when the whole file would not fit', () => {
    const r = fitDiff(diff, { query: 'src/one.ts#4', budget: 60 });
    expect(r.fit?.view).toBe('section');
    expect(r.text).toBe(
      'diff --git a/src/one.ts b/src/one.ts\n--- a/src/one.ts\n+++ b/src/one.ts\n@@ -61,3 +61,3 @@ function part3()\n keep\n-const before3 = 3;\n+const after3 = 4;\n keep',
    );
  });
});

describe('fitJson', () => {
  const value = {
    title: 'Quarterly report. It covers three months.',
    rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}`, total: i * 3 })),
    owner: { name: 'Ada', team: 'ops' },
  };

  it('falls to the summary: one line per key with a cut of its value', () => {
    const r = fitJson(value, { budget: 500 });
    expect(r.fit?.view).toBe('summary');
    expect(r.text.split('\n').slice(1)).toEqual([
      '  "title": "Quarterly report."',
      `  "rows": ${JSON.stringify(value.rows).slice(0, 120)}…`,
      '  "owner": {"name":"Ada","team":"ops"}',
    ]);
  });

  it('falls to the stub: the top-level keys and what each holds', () => {
    const r = fitJson(value, { view: 'stub' });
    expect(r.text).toContain('"rows": array of 200 items (line 3)');
    expect(r.text).toContain('"owner": object with 2 keys: name, team (line 4)');
  });

  it('reads items of an array by [n] and a big array by line ranges', () => {
    expect(fitJson(value.rows, { query: '[150]' }).text).toBe('  {"id":150,"name":"row 150","total":450},');
    expect(fitJson(value.rows, { query: '3-4' }).text).toBe('  {"id":1,"name":"row 1","total":3},\n  {"id":2,"name":"row 2","total":6},');
  });
});
