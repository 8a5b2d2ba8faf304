import { describe, expect, it } from 'vitest';
import { fitDiff } from '../../../clients/typescript/src/fit/diff.ts';
import { fitDocument } from '../../../clients/typescript/src/fit/document.ts';
import { fitJson, jsonLines } from '../../../clients/typescript/src/fit/json.ts';

// Given a whole and a query in one of the forms of SPEC §13, when it is fitted, then the section
// view holds exactly the whole parts the query names.

const markdown = ['# Guide', 'Intro.', '## Install', 'Run it.', '### On Linux', 'apt-get it.', '## Use', 'Call it.', ''].join('\n');

const typescript = [
  "import { x } from './x.ts';",
  '',
  '/** Adds two numbers. */',
  'export function add(a: number, b: number): number {',
  '  return a + b;',
  '}',
  '',
  'export const LIMIT = {',
  '  max: 3,',
  '};',
  '',
  'export class Counter {',
  '  private n = 0;',
  '  next(): number {',
  '    return ++this.n;',
  '  }',
  '}',
  '',
].join('\n');

const python = [
  'import os',
  '',
  '',
  'class Store:',
  '    """Keeps things."""',
  '',
  '    def get(self, key):',
  '        """Gets one thing."""',
  '        return self.items[key]',
  '',
  '    def put(self, key, value):',
  '        self.items[key] = value',
  '',
  '',
  '@cache',
  'def load(path):',
  '    return open(path).read()',
  '',
].join('\n');

const diff = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,3 +1,3 @@',
  ' one',
  '-two',
  '+TWO',
  ' three',
  '@@ -10,2 +10,3 @@ function ten()',
  ' ten',
  '+ten and a half',
  ' eleven',
  'diff --git a/src/b.ts b/src/b.ts',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/src/b.ts',
  '@@ -0,0 +1,2 @@',
  '+--- not a header, an added line',
  '+b',
  '',
].join('\n');

describe('query forms', () => {
  it('a heading: the heading and everything under it, down to the next heading as high', () => {
    const r = fitDocument(markdown, { query: 'Install' });
    expect(r.fit?.view).toBe('section');
    expect(r.text).toBe('## Install\nRun it.\n### On Linux\napt-get it.');
    expect(fitDocument(markdown, { query: '## use' }).text).toBe('## Use\nCall it.');
    expect(fitDocument(markdown, { query: 'linux' }).text).toBe('### On Linux\napt-get it.');
  });

  it('a TypeScript definition name: the whole definition with its doc comment', () => {
    expect(fitDocument(typescript, { query: 'add', name: 'math.ts' }).text).toBe(
      '/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}',
    );
    expect(fitDocument(typescript, { query: 'LIMIT' }).text).toBe('export const LIMIT = {\n  max: 3,\n};');
    expect(fitDocument(typescript, { query: 'Counter' }).text).toBe(
      'export class Counter {\n  private n = 0;\n  next(): number {\n    return ++this.n;\n  }\n}',
    );
  });

  it('a Python definition name: a class, a method, a decorated function', () => {
    const store = fitDocument(python, { query: 'Store', name: 'store.py' });
    expect(store.text.split('\n')[0]).toBe('class Store:');
    expect(store.text.split('\n').at(-1)).toBe('        self.items[key] = value');
    expect(fitDocument(python, { query: 'get' }).text).toBe('    def get(self, key):\n        """Gets one thing."""\n        return self.items[key]');
    expect(fitDocument(python, { query: 'load' }).text).toBe('@cache\ndef load(path):\n    return open(path).read()');
    expect(fitDocument(python, { view: 'summary' }).text).toContain('  def get(self, key): — Gets one thing.');
  });

  it('a line range: those whole lines', () => {
    const r = fitDocument(markdown, { query: '3-4' });
    expect(r.text).toBe('## Install\nRun it.');
    expect(r.fit?.omitted).toContain('This is lines 3-4 of 8 of the document');
    expect(fitDocument(markdown, { query: '7-100' }).text).toBe('## Use\nCall it.');
    expect(fitDocument(markdown, { query: '50-60' }).fit?.view).toBe('summary');
  });

  it('a path of a diff: that file, header and all hunks', () => {
    const r = fitDiff(diff, { query: 'src/a.ts' });
    expect(r.fit?.view).toBe('section');
    expect(r.text).toBe(diff.split('\n').slice(0, 13).join('\n'));
    expect(fitDiff(diff, { query: 'b.ts' }).text).toBe(diff.split('\n').slice(13, 20).join('\n'));
  });

  it('<path>#<n>: the file header and its n-th hunk', () => {
    const r = fitDiff(diff, { query: 'src/a.ts#2' });
    expect(r.text).toBe(
      [
        'diff --git a/src/a.ts b/src/a.ts',
        'index 1111111..2222222 100644',
        '--- a/src/a.ts',
        '+++ b/src/a.ts',
        '@@ -10,2 +10,3 @@ function ten()',
        ' ten',
        '+ten and a half',
        ' eleven',
      ].join('\n'),
    );
    expect(r.fit?.omitted).toContain("the section matching 'src/a.ts#2' (lines 1-4, lines 10-13)");
    expect(fitDiff(diff, { query: 'src/a.ts#3' }).fit?.view).toBe('summary');
  });

  it('reads hunks by their counts: an added line starting with --- is no new file', () => {
    const stub = fitDiff(diff, { view: 'stub' }).text;
    expect(stub).toContain('2 files, +4 −1 lines');
    expect(stub).toContain('src/a.ts (+2 −1, 2 hunks, lines 1-13)');
    expect(stub).toContain('src/b.ts (+2 −0, 1 hunk, lines 14-20)');
    expect(fitDiff(diff, { view: 'summary' }).text).toContain('src/a.ts (+2 −1, 2 hunks)\n  @@ -1,3 +1,3 @@\n  @@ -10,2 +10,3 @@ function ten()');
  });

  it('JSON: one indented line per top-level value; a key, an item, a line range', () => {
    const value = { name: 'Ada', tags: ['a', 'b'], nested: { deep: { deeper: true } } };
    expect(jsonLines(value)).toBe('{\n  "name": "Ada",\n  "tags": ["a","b"],\n  "nested": {"deep":{"deeper":true}}\n}');
    expect(JSON.parse(jsonLines(value))).toEqual(value);
    expect(fitJson(value, { query: 'tags' }).text).toBe('  "tags": ["a","b"],');
    expect(fitJson(value, { query: '2-3' }).text).toBe('  "name": "Ada",\n  "tags": ["a","b"],');
    const items = [{ id: 1 }, { id: 2 }, { id: 3 }];
    expect(fitJson(items, { query: '[1]' }).text).toBe('  {"id":2},');
    expect(fitJson(items, { view: 'stub' }).text).toContain('[2] object with 1 key: id (line 4)');
    expect(fitJson(JSON.parse(JSON.stringify(items)), { budget: 1000 }).text).toBe(jsonLines(items));
  });
});

describe('Setext headings', () => {
  it('reads a line underlined with === or --- as a heading', () => {
    const page = ['Title', '=====', 'Intro here.', '', 'Usage', '-----', 'Call it.', '', '- item', '---', 'After a rule.', ''].join('\n');
    expect(fitDocument(page, { view: 'summary' }).text.split('\n').slice(1)).toEqual(['# Title: Intro here.', '## Usage: Call it.']);
    expect(fitDocument(page, { query: 'Usage' }).text).toBe('Usage\n-----\nCall it.\n\n- item\n---\nAfter a rule.');
  });
});
