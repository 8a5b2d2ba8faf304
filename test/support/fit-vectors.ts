import { readdirSync, readFileSync } from 'node:fs';
import { CAP, CAP_CHARS, charsOf, countChars, defaultBudget, fitDiff, fitDocument, fitJson, wanted, weigh, type FitOptions } from '../../sdk/fit.ts';

// The shared vectors the Python and Go clients are held to: built from the TypeScript library,
// written by scripts/fit-vectors.ts into test/fixtures/fit-vectors/, and checked against the
// library by test/unit/fit/vectors.unit.test.ts so the checked-in files cannot drift.

export const CORPUS = new URL('../fixtures/fit-corpus/docs/', import.meta.url);
export const VECTORS = new URL('../fixtures/fit-vectors/', import.meta.url);

/** How a case's input is made: a corpus file, a literal text, or a text repeated (for the caps). */
export type Input = { readonly corpus: string } | { readonly text: string } | { readonly repeat: string; readonly times: number };

export interface FitCase {
  readonly name: string;
  readonly fn: 'document' | 'diff' | 'json';
  readonly input: Input;
  readonly options: FitOptions;
  readonly text: string;
  readonly fit: unknown;
}

export const inputText = (input: Input): string =>
  'corpus' in input ? readFileSync(new URL(input.corpus, CORPUS), 'utf8') : 'text' in input ? input.text : input.repeat.repeat(input.times);

export const corpusFiles = (): string[] => readdirSync(CORPUS).sort();

/** `weigh` of every corpus document and of texts that reach each branch of the estimate. */
export const weighVectors = () => ({
  corpus: corpusFiles().map((file) => ({ file, tokens: weigh(inputText({ corpus: file })) })),
  texts: WEIGH_TEXTS.map((text) => ({ text, tokens: weigh(text), chars: countChars(text) })),
});

const WEIGH_TEXTS: readonly string[] = [
  '',
  'a',
  ' ',
  'hello world',
  'The quick brown fox jumps over the lazy dog.',
  'createProjectionRunner getHTTPResponse parseJSON XMLHttpRequest',
  'ACCOUNTABILITY Accountability accountability',
  'über Straße Größe Ärger öffnen Zuständigkeitsbereich Verantwortlichkeit',
  'naïve café résumé ﬁancée Ｆｕｌｌｗｉｄｔｈ　１２３',
  'Привет, мир! Ελληνικά γράμματα. שלום עולם مرحبا بالعالم',
  '日本語のテキストです。한국어 텍스트입니다. 中文文本。',
  'हिन्दी ภาษาไทย ქართული Հայերեն',
  '12345678901 3.14159 1,000,000 ٣٤٥ ۱۲۳',
  '---- ==== ******** ---------------------------------------- ();{}[] => !== ...',
  '┌──────────┐ │ box │ └──────────┘ ★★★ →→→',
  'emoji 😀😀😀 👩‍👩‍👧‍👦 🇩🇪 and a lone high \ud83d and low \ude00 surrogate',
  '\t\tindented\n    four\r\n\r\n\n\n  trailing   ',
  ' '.repeat(64),
  ' '.repeat(65),
  ' '.repeat(1000) + 'x',
  '\n'.repeat(100),
  'a' + '\u00a0\u2009\u3000\ufeff'.repeat(20) + 'b',
  "it's don't we're they've I'm we'll he'd",
  '{"key": "value", "n": [1, 2, 3], "nested": {"a": null, "b": true}}',
  '<div class="x">&amp; &lt;tag&gt;</div> https://example.com/path?q=1&r=2#frag',
  'x'.repeat(40) + ' ' + 'Supercalifragilisticexpialidocious',
  '.a ,b ;c :d !e ?f -g _h',
];

const doc = (name: string, fn: FitCase['fn'], input: Input, options: FitOptions): Omit<FitCase, 'text' | 'fit'> => ({ name, fn, input, options });

const run = (fn: FitCase['fn'], text: string, options: FitOptions) =>
  fn === 'document' ? fitDocument(text, options) : fn === 'diff' ? fitDiff(text, options) : fitJson(JSON.parse(text) as unknown, options);

const MARKDOWN = '166-markdown.txt';
const SMALL_DIFF = [
  'A preamble line that says what the change is.',
  '',
  'diff --git a/src/app.ts b/src/app.ts',
  'index 1111111..2222222 100644',
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -1,3 +1,4 @@',
  ' import x from "x";',
  '-const a = 1;',
  '+const a = 2;',
  '+const b = 3;',
  ' export { a };',
  '@@ -10,2 +11,2 @@ function f() {',
  '-  return 1;',
  '+  return 2;',
  '   }',
  'diff --git a/docs/old.md b/docs/new.md',
  'similarity index 90%',
  'rename from docs/old.md',
  'rename to docs/new.md',
  '--- a/docs/old.md',
  '+++ b/docs/new.md',
  '@@ -1 +1 @@',
  '-# Old',
  '+# New',
  '\\ No newline at end of file',
  '--- /dev/null',
  '+++ b/added.txt',
  '@@ -0,0 +1,2 @@',
  '+-- a line starting with two dashes',
  '+second',
  '',
].join('\n');
const SMALL_JSON = JSON.stringify({
  name: 'custodian',
  '2': 'an integer key comes first',
  '10': 'and in order',
  description: 'Versioned plugin records. The second sentence is left out.',
  nested: { a: [1, 2.5, -0.001, 1e21, 1e-7, 123456789012345680000], b: null, c: true },
  long: 'x'.repeat(300),
  unicode: 'Größe 😀 \u2028 line\tsep "quoted" \\ back\u0001',
  list: Array.from({ length: 12 }, (_, i) => ({ i, label: `item ${i}` })),
  empty: {},
  none: [],
});
const ARRAY_JSON = JSON.stringify([
  'First item. Second sentence.',
  42,
  null,
  false,
  { k: 'v' },
  [1, [2, [3]]],
  'y'.repeat(500),
  -12.75,
  '',
  '日本語の文です。次の文。',
]);

const optionMatrix = (query: string, range: string): FitOptions[] => [
  {},
  { chars: 10, head: 'x' },
  { view: 'stub' },
  { view: 'summary' },
  { view: 'section' },
  { view: 'full' },
  { view: 'section', query },
  { query },
  { query: range },
  { query: 'no such part anywhere' },
  { budget: 1 },
  { budget: 20 },
  { budget: 60 },
  { budget: 150 },
  { budget: 400 },
  { budget: 1000 },
  { budget: 4000 },
  { budget: 60_000 },
  { view: 'full', budget: 100 },
  { view: 'summary', budget: 30 },
  { view: 'section', query, budget: 30 },
  { view: 'stub', budget: 5 },
  { budget: 500, chars: 300 },
  { budget: 2000, chars: 700, head: 'path/to/thing', name: 'thing' },
  { view: 'summary', head: 'HEAD LINE', name: 'the page' },
  { query, head: 'h', name: 'n' },
];

/** The fitting cases: each function over inputs of each kind, through the option matrix. */
const fitCaseSpecs = (): Array<Omit<FitCase, 'text' | 'fit'>> => {
  const specs: Array<Omit<FitCase, 'text' | 'fit'>> = [];
  const add = (label: string, fn: FitCase['fn'], input: Input, options: FitOptions[]) =>
    options.forEach((o, i) => specs.push(doc(`${label} #${i}`, fn, input, o)));
  const byKind = (kind: string) => corpusFiles().filter((f) => f.includes(`-${kind}.`));
  add('markdown', 'document', { corpus: MARKDOWN }, optionMatrix('keys', '3-12'));
  for (const file of ['168-markdown.txt', '172-markdown.txt', '179-markdown.txt', '161-markdown.txt'])
    add(`markdown ${file}`, 'document', { corpus: file }, optionMatrix('Install', '10–4'));
  for (const file of byKind('typescript').slice(0, 3)) add(`typescript ${file}`, 'document', { corpus: file }, optionMatrix('create', '5..9'));
  for (const file of byKind('python').slice(0, 3)) add(`python ${file}`, 'document', { corpus: file }, optionMatrix('__init__', '1-99999'));
  for (const file of byKind('log').slice(0, 2)) add(`log ${file}`, 'document', { corpus: file }, optionMatrix('error', '41-80'));
  for (const file of ['prose-ja', 'prose-de', 'prose-ar', 'prose-mixed'].map((k) => byKind(k)[0]!))
    add(`prose ${file}`, 'document', { corpus: file }, optionMatrix('lines 1-2', '0-3'));
  for (const file of byKind('diff').slice(0, 3)) add(`diff ${file}`, 'diff', { corpus: file }, optionMatrix('README.md', '1-20'));
  add('small diff', 'diff', { text: SMALL_DIFF }, [
    ...optionMatrix('src/app.ts#2', '3-8'),
    { query: 'app.ts' },
    { query: 'docs/old.md' },
    { query: 'new.md#1' },
    { query: 'added.txt#9' },
    { view: 'summary', budget: 40 },
  ]);
  for (const file of ['197-json.txt', '198-json.txt', '199-json.txt']) add(`json ${file}`, 'json', { corpus: file }, optionMatrix('name', '2-4'));
  add('small json', 'json', { text: SMALL_JSON }, [...optionMatrix('nested', '2-5'), { query: '"name"' }, { query: '2' }, { query: 'lon' }]);
  add('array json', 'json', { text: ARRAY_JSON }, optionMatrix('[6]', '1-3'));
  for (const scalar of ['"a string. With two sentences."', '3.5', 'null', '{}', '[]', 'true'])
    add(`scalar json ${scalar}`, 'json', { text: scalar }, [{ view: 'summary' }, { budget: 1 }, { query: '1-1' }]);
  add('named md', 'document', { text: '# Title\n\ndef f():\n    pass\n' }, [
    { name: 'notes.md', budget: 100 },
    { name: 'f.py', budget: 100 },
    { head: 'f.PY', view: 'summary' },
  ]);
  add('setext', 'document', { text: 'Title\n=====\n\nIntro text. More.\n\nSub\n---\n\nBody here!\n\n- item\n---\n' }, [{ view: 'summary' }, { query: 'sub' }]);
  add(
    'code',
    'document',
    {
      text: [
        '// The first comment. Second.',
        '/**',
        ' * A documented function.',
        ' * @param x the input',
        ' */',
        'export async function go(x: number) {',
        '  return x;',
        '}',
        '',
        '@decorator',
        'class Thing:',
        '    """A thing. It does things."""',
        '',
        '    def method(self):',
        "        '''Method doc.'''",
        '        return 1',
        '',
        'export const value = 1;',
        ')',
      ].join('\n'),
    },
    [{ view: 'summary' }, { view: 'stub' }, { query: 'method' }, { query: 'thing' }, { query: 'go', budget: 10 }, { budget: 3 }],
  );
  add('empty', 'document', { text: '' }, [{ view: 'summary' }, { budget: 10 }, { query: 'x' }]);
  add('crlf', 'document', { text: '# A\r\n\r\nOne. Two.\r\n# B #\r\ntext\r\n' }, [{ view: 'summary' }, { query: 'B' }, { query: '# a' }]);
  add('sentences', 'document', { text: `para one line\ncontinues here! next\n\n${'word '.repeat(80)}\n\n\`\`\`\ncode\n\`\`\`\nafter fence。后` }, [
    { view: 'summary' },
  ]);
  // The caps: a whole over CAP_CHARS characters, and one over CAP tokens.
  add('over CAP_CHARS', 'document', { repeat: 'word ', times: 45_000 }, [{ view: 'full' }, { budget: 1_000_000 }, { query: '1-1' }]);
  add('over CAP', 'document', { repeat: '# h\n' + '🙂'.repeat(30) + '\n', times: 1_500 }, [{}, { view: 'full' }, { view: 'stub' }, { budget: 80_000 }]);
  return specs;
};

export const fitVectors = (): FitCase[] =>
  fitCaseSpecs().map((spec) => {
    const r = run(spec.fn, inputText(spec.input), spec.options);
    return { ...spec, text: r.text, fit: r.fit };
  });

/** The small functions: defaultBudget, charsOf, wanted, and the constants. */
export const miscVectors = () => ({
  CAP,
  CAP_CHARS,
  charsOf: [0, 1, 500, 2000, 50_000].map((budget) => ({ budget, chars: charsOf(budget) })),
  defaultBudget: [0, -5, 1000, 100_000, 120_000, 126_000, 127_999, 128_000, 200_000, 96_000, 95_999, 64_001].flatMap((used) =>
    [false, true].map((warned) => ({ used, warned, budget: defaultBudget({ used, warned }) })),
  ),
  wanted: [
    [{}, wanted({})],
    [{ view: 'stub' }, wanted({ view: 'stub' })],
    [{ budget: 10 }, wanted({ budget: 10 })],
    [{ query: '' }, wanted({ query: '' })],
    [{ query: 'x' }, wanted({ query: 'x' })],
  ].map(([options, result]) => ({ options, wanted: result })),
});

/** The files as written: name → JSON text (one-space indent, final newline). */
export const vectorFiles = (): Record<string, string> => {
  const out = (v: unknown) => `${JSON.stringify(v, null, 1)}\n`;
  return { 'weigh.json': out(weighVectors()), 'fit.json': out(fitVectors()), 'misc.json': out(miscVectors()) };
};
