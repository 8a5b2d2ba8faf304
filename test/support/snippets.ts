import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './npm-start.ts';

/**
 * The fenced blocks of the user's documents, and the one mechanical rule for them: a block's
 * tag says how a test holds it. `sh` runs in bash against a service, `ts` runs under tsx,
 * `json` must parse, `text` is output shown to a reader and is never run. Any other tag (or
 * none) is a defect, so no snippet escapes the tests by its spelling.
 */
export const RUN_TAGS = ['sh', 'ts', 'json'] as const;
export const SHOWN_TAGS = ['text'] as const;
export type Tag = (typeof RUN_TAGS)[number] | (typeof SHOWN_TAGS)[number];

export interface Block {
  readonly file: string;
  readonly line: number;
  readonly tag: string;
  readonly code: string;
}

/** Pages written by other parts of the project and held by their own tests. */
const ELSEWHERE = ['docs/clients/'];

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : name.endsWith('.md') ? [full] : [];
  });

/** README.md and every Markdown page under docs/, as paths relative to the repository. */
export const documents = (): string[] =>
  ['README.md', ...walk(path.join(REPO, 'docs')).map((f) => path.relative(REPO, f))].filter((f) => !ELSEWHERE.some((p) => f.startsWith(p))).sort();

export const blocksOf = (file: string, text: string = readFileSync(path.join(REPO, file), 'utf8')): Block[] => {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    blocks.push({ file, line: start + 1, tag: open[2]!.trim(), code: `${body.join('\n')}\n` });
  }
  return blocks;
};

/**
 * The order a reader meets the guides in: the README's first record, then each guide as the
 * README's table of what to read next lists them. A reader runs them one after another in one
 * shell, so a test does too; every guide must have its place here.
 */
export const READING_ORDER = [
  'README.md',
  'docs/guides/plugin-authors.md',
  'docs/guides/agent-authors.md',
  'docs/guides/auditors.md',
  'docs/guides/compliance.md',
  'docs/guides/operators.md',
] as const;

/** The README's first-record block: every page's shell examples continue from it. */
export const firstRecordBlock = (): string => {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const section = '## Your first record in one minute';
  const start = readme.indexOf(`\n${section}\n`);
  if (start < 0) throw new Error(`README has no "${section}" section`);
  const end = readme.indexOf('\n## ', start + section.length + 2);
  const sh = blocksOf('README.md', readme.slice(start, end < 0 ? undefined : end)).filter((b) => b.tag === 'sh');
  if (sh.length === 0) throw new Error(`"${section}" has no sh block`);
  return sh.map((b) => b.code).join('\n');
};
