import { firstSentence } from './sentence.ts';
import { lineSpan, linesOf, type Part, type Shape } from './shape.ts';
import type { FitOptions, Fitted } from './types.ts';
import { fitShape } from './views.ts';

// A unified diff cut into files and hunks. Hunks are read by their line counts (`@@ -a,b +c,d @@`),
// so a removed line that starts with "--" is never taken for the next file's header.

const GIT = /^diff --git a\/(.*?) b\/(.*?)\r?$/;
const OLD = /^--- (?:a\/)?(.*?)(?:\t.*)?\r?$/;
const NEW = /^\+\+\+ (?:b\/)?(.*?)(?:\t.*)?\r?$/;
const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

interface Hunk {
  start: number;
  end: number;
}

interface File {
  start: number;
  headerEnd: number;
  end: number;
  path: string;
  old: string;
  added: number;
  removed: number;
  hunks: Hunk[];
}

const parse = (lines: readonly string[]): { files: File[]; preamble: number } => {
  const files: File[] = [];
  let preamble = lines.length;
  let file: File | null = null;
  const open = (at: number, path: string): File => {
    if (files.length === 0) preamble = at;
    file = { start: at, headerEnd: at + 1, end: at + 1, path, old: path, added: 0, removed: 0, hunks: [] };
    files.push(file);
    return file;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const git = GIT.exec(line);
    const current = file as File | null;
    if (git) {
      const f = open(i, git[2]!);
      f.old = git[1]!;
      continue;
    }
    const old = OLD.exec(line);
    const neu = i + 1 < lines.length ? NEW.exec(lines[i + 1]!) : null;
    if (old && neu) {
      // A file's ---/+++ pair: in the header of a `diff --git` file, or the start of a plain one.
      const f = current && current.hunks.length === 0 && current.headerEnd === i ? current : open(i, neu[1]!);
      f.old = old[1] === '/dev/null' ? neu[1]! : old[1]!;
      f.path = neu[1] === '/dev/null' ? f.old : neu[1]!;
      f.headerEnd = f.end = i + 2;
      i++;
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk && current) {
      let olds = hunk[1] === undefined ? 1 : Number(hunk[1]);
      let news = hunk[2] === undefined ? 1 : Number(hunk[2]);
      let j = i + 1;
      while (j < lines.length && (olds > 0 || news > 0 || lines[j]!.startsWith('\\'))) {
        const c = lines[j]![0];
        if (c === '-') {
          olds--;
          current.removed++;
        } else if (c === '+') {
          news--;
          current.added++;
        } else if (c !== '\\') {
          olds--;
          news--;
        }
        j++;
      }
      current.hunks.push({ start: i, end: j });
      current.end = j;
      i = j - 1;
      continue;
    }
    if (current && current.hunks.length === 0) current.headerEnd = current.end = i + 1;
    else if (current) current.end = i + 1;
  }
  return { files, preamble };
};

export const shapeDiff = (diff: string): Shape => {
  const lines = linesOf(diff);
  const { files, preamble } = parse(lines);
  const parts: Part[] = [];
  if (lines.slice(0, preamble).some((l) => l.trim() !== '')) {
    parts.push({
      title: '(before the first file)',
      outline: `(before the first file, ${lineSpan(0, preamble)})`,
      summary: firstSentence(lines.slice(0, preamble)),
      spans: [[0, preamble]],
      names: [],
    });
  }
  let added = 0;
  let removed = 0;
  for (const f of files) {
    added += f.added;
    removed += f.removed;
    const counts = `+${f.added} −${f.removed}, ${f.hunks.length} ${f.hunks.length === 1 ? 'hunk' : 'hunks'}`;
    const names = f.old !== f.path ? [f.path, f.old] : [f.path];
    parts.push({
      title: f.path,
      outline: `${f.path}${f.old !== f.path ? ` (from ${f.old})` : ''} (${counts}, ${lineSpan(f.start, f.end)})`,
      summary: [`${f.path} (${counts})`, ...f.hunks.map((h) => `  ${lines[h.start]!.trim()}`)].join('\n'),
      spans: [[f.start, f.end]],
      names,
    });
    f.hunks.forEach((h, k) => {
      parts.push({
        title: `${f.path}#${k + 1}`,
        outline: '',
        summary: '',
        spans: [
          [f.start, f.headerEnd],
          [h.start, h.end],
        ],
        names: names.map((p) => `${p}#${k + 1}`),
        hidden: true,
      });
    });
  }
  return {
    kind: 'diff',
    full: diff,
    lines,
    parts,
    facts: `${files.length} ${files.length === 1 ? 'file' : 'files'}, +${added} −${removed} lines`,
    queries: 'a path, <path>#<n> for its n-th hunk, or a line range such as 120-180',
  };
};

/** Fits a unified diff to a view and budget; its parts are files and, by `<path>#<n>`, hunks. */
export const fitDiff = (diff: string, options: FitOptions = {}): Fitted => fitShape(shapeDiff(diff), options, 'the diff');
