import { firstSentence } from './sentence.ts';
import { lineSpan, linesOf, type Part, type Shape } from './shape.ts';

// A document is cut by its Markdown headings, else by its definitions (TypeScript, JavaScript,
// Python), else into runs of lines. A name ending in .md (or .ts, .py…) settles which when given.

const HEADING = /^(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*\r?$/;
const FENCE = /^\s*(```|~~~)/;
// A Setext heading: a line of text underlined with === (level 1) or --- (level 2).
const SETEXT = /^ {0,3}(=+|-+)[ \t]*\r?$/;
const NOT_SETEXT = /^\s*([-*+>|]|\d+[.)])(\s|$)|^ {4}|^\s*(---|===)/;
const TS_DEFINITION =
  /^(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:async[ \t]+)?(function\*?|class|const|let|var|interface|type|enum|namespace)[ \t]+([A-Za-z_$][\w$]*)/;
const PY_DEFINITION = /^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)/;
const CLOSER = /^[)\]}]/;
const LEADING = /^(@|\/\/|\/\*|\*|#)/;
// A run of lines of a plain text is a paragraph, or at most this many lines of a longer one.
const RUN = 40;

const indentOf = (line: string): number => line.length - line.trimStart().length;
const blank = (line: string): boolean => line.trim() === '';

const markdownParts = (lines: readonly string[]): Part[] | null => {
  // `body` is where a heading's own text starts: after its line, or after a Setext underline.
  const heads: Array<{ at: number; body: number; level: number; title: string }> = [];
  let fenced = false;
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    if (FENCE.test(line)) fenced = !fenced;
    if (fenced || FENCE.test(line)) continue;
    const m = HEADING.exec(line);
    if (m) heads.push({ at, body: at + 1, level: m[1]!.length, title: m[2]!.trim() });
    else if (!blank(line) && !NOT_SETEXT.test(line) && at + 1 < lines.length) {
      const under = SETEXT.exec(lines[at + 1]!);
      if (under) {
        heads.push({ at, body: at + 2, level: under[1]!.startsWith('=') ? 1 : 2, title: line.trim() });
        at++;
      }
    }
  }
  if (heads.length === 0) return null;
  const parts: Part[] = [];
  const top = heads[0]!.at;
  if (lines.slice(0, top).some((l) => !blank(l))) {
    const sentence = firstSentence(lines.slice(0, top));
    parts.push({
      title: '(before the first heading)',
      outline: `(before the first heading, ${lineSpan(0, top)})`,
      summary: sentence,
      spans: [[0, top]],
      names: [],
    });
  }
  // Where each heading's part ends: at the next heading as high (a stack keeps this linear).
  const ends: number[] = new Array<number>(heads.length);
  const stack: number[] = [];
  for (let k = heads.length - 1; k >= 0; k--) {
    while (stack.length > 0 && heads[stack[stack.length - 1]!]!.level > heads[k]!.level) stack.pop();
    ends[k] = stack.length > 0 ? heads[stack[stack.length - 1]!]!.at : lines.length;
    stack.push(k);
  }
  heads.forEach((h, k) => {
    const end = ends[k]!;
    const own = heads[k + 1] ? heads[k + 1]!.at : lines.length;
    const mark = `${'#'.repeat(h.level)} ${h.title}`;
    const sentence = firstSentence(lines.slice(h.body, own));
    parts.push({
      title: h.title,
      outline: `${mark} (${lineSpan(h.at, end)})`,
      summary: sentence ? `${mark}: ${sentence}` : mark,
      spans: [[h.at, end]],
      names: [h.title, mark],
    });
  });
  return parts;
};

/** Where a definition starting at `at` ends: before the next line as far out that is not a closer. */
const definitionEnd = (lines: readonly string[], at: number, indent: number): number => {
  let end = at + 1;
  for (let j = at + 1; j < lines.length; j++) {
    const line = lines[j]!;
    if (blank(line)) continue;
    if (indentOf(line) > indent) end = j + 1;
    else if (CLOSER.test(line.trimStart())) end = j + 1;
    else break;
  }
  return end;
};

/** Comment and decorator lines right above a definition belong to it. */
const definitionStart = (lines: readonly string[], at: number, indent: number, floor: number): number => {
  let start = at;
  const leads = (line: string): boolean => {
    const trimmed = line.trim();
    // ` * ` lines of a block comment sit one column in.
    return LEADING.test(trimmed) && (indentOf(line) === indent || (trimmed.startsWith('*') && indentOf(line) === indent + 1));
  };
  while (start - 1 >= floor && leads(lines[start - 1]!)) start--;
  return start;
};

const docOf = (lines: readonly string[], start: number, at: number, end: number): string => {
  // A leading comment, else a Python docstring's first line(s).
  const above = lines
    .slice(start, at)
    .map((l) => l.trim().replace(/^(\/\*\*?|\*\/|\*|\/\/|#)\s?/, ''))
    .filter((l) => !l.startsWith('@'));
  if (above.some((l) => l.trim() !== '')) return firstSentence(above);
  const body = lines.slice(at + 1, Math.min(end, at + 8)).map((l) => l.trim());
  const doc = body.findIndex((l) => l.startsWith('"""') || l.startsWith("'''"));
  return doc >= 0 && body.slice(0, doc).every((l) => l === '')
    ? firstSentence(body.slice(doc).map((l) => l.replace(/^("""|''')/, '').replace(/("""|''')$/, '')))
    : '';
};

const codeParts = (lines: readonly string[]): Part[] | null => {
  const parts: Part[] = [];
  let floor = 0;
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    const ts = TS_DEFINITION.exec(line);
    const py = ts ? null : PY_DEFINITION.exec(line);
    // Top-level definitions, and a Python class's methods one level in.
    const indent = ts ? 0 : py ? py[1]!.length : -1;
    if (indent < 0 || indent > 4) continue;
    const name = ts ? ts[2]! : py![3]!;
    const keyword = ts ? ts[1]! : py![2]!;
    const start = definitionStart(lines, at, indent, floor);
    const end = definitionEnd(lines, at, indent);
    const doc = docOf(lines, start, at, end);
    const pad = indent > 0 ? '  ' : '';
    parts.push({
      title: name,
      outline: `${pad}${keyword} ${name} (${lineSpan(start, end)})`,
      summary: `${pad}${line.trim()}${doc ? ` — ${doc}` : ''}`,
      spans: [[start, end]],
      names: [name],
    });
    if (indent === 0) floor = at + 1;
  }
  return parts.length > 0 ? parts : null;
};

const textParts = (lines: readonly string[]): Part[] => {
  const parts: Part[] = [];
  let at = 0;
  while (at < lines.length) {
    while (at < lines.length && blank(lines[at]!)) at++;
    if (at >= lines.length) break;
    let end = at;
    while (end < lines.length && !blank(lines[end]!) && end - at < RUN) end++;
    const span = lineSpan(at, end);
    const sentence = firstSentence(lines.slice(at, end));
    parts.push({ title: span, outline: span, summary: `${span}: ${sentence}`, spans: [[at, end]], names: [] });
    at = end;
  }
  return parts;
};

const byName = (name: string | undefined): 'markdown' | 'code' | null => {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name ?? '')?.[1]?.toLowerCase();
  if (ext === undefined) return null;
  if (['md', 'markdown', 'mdx'].includes(ext)) return 'markdown';
  if (['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'mts', 'cts', 'py', 'pyi'].includes(ext)) return 'code';
  return null;
};

/** Cuts a document into its parts: headings, definitions, or runs of lines. */
export const shapeDocument = (text: string, name?: string): Shape => {
  const lines = linesOf(text);
  const hint = byName(name);
  const code = hint === 'markdown' ? null : codeParts(lines);
  // Definitions win over headings unless the name says Markdown: a Python comment looks like one.
  const markdown = code ? null : markdownParts(lines);
  const [kind, parts, queries] = code
    ? ['code', code, "a definition's name (a function, class or const) or a line range such as 120-180"]
    : markdown
      ? ['Markdown', markdown, 'a heading or a line range such as 120-180']
      : ['text', textParts(lines), 'a line range such as 120-180'];
  const count = parts.length;
  const unit = kind === 'code' ? 'definition' : kind === 'Markdown' ? 'part' : 'run of lines';
  const plural = kind === 'text' ? 'runs of lines' : `${unit}s`;
  return { kind, full: text, lines, parts, facts: `${count} ${count === 1 ? unit : plural}`, queries };
};
