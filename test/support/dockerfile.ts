import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One instruction of a Dockerfile's final stage, continuation lines joined. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** The instructions after the last FROM (what the image holds), comments and blank lines dropped. */
export const finalStage = (dockerfile: string): Instruction[] => {
  const joined = dockerfile.replace(/\\\r?\n/g, ' ');
  const all = joined
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(l) ?? [];
      return { keyword: keyword.toUpperCase(), args };
    });
  const from = all.map((i) => i.keyword).lastIndexOf('FROM');
  if (from < 0) throw new Error('the Dockerfile has no FROM');
  return all.slice(from + 1);
};

/** A COPY's sources and destination, from its shell or JSON form; flags (--chown=…) dropped. */
export const copyOf = (args: string): { sources: string[]; dest: string } => {
  const words = args.trim().startsWith('[')
    ? (JSON.parse(args) as string[])
    : args
        .split(/\s+/)
        .filter(Boolean)
        .filter((w) => !w.startsWith('--'));
  if (words.length < 2) throw new Error(`COPY ${args}: needs a source and a destination`);
  if (words.some((w) => w.startsWith('--'))) throw new Error(`COPY ${args}: flags in the JSON form are not read here`);
  return { sources: words.slice(0, -1), dest: words.at(-1)! };
};

/** ENV in its `K=V K2=V2` form (the only one this project writes). */
export const envOf = (args: string): Record<string, string> =>
  Object.fromEntries(
    args
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`ENV ${args}: write it as KEY=value`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );

/** The patterns of a .dockerignore this project writes: names and `*.ext` globs, at any depth. */
export const ignoredBy = (dockerignore: string) => {
  const patterns = dockerignore
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`));
  return (relative: string) => relative.split(path.sep).some((part) => patterns.some((re) => re.test(part)));
};

/**
 * Copies what the final stage's COPY lines take from `context` into `root` (the image's
 * filesystem: a destination is under WORKDIR unless absolute), leaving out what .dockerignore
 * names. Answers the stage's instructions, for the caller to run the rest (RUN, ENV, CMD).
 */
export const assembleImage = (context: string, root: string): { workdir: string; instructions: Instruction[] } => {
  const instructions = finalStage(readFileSync(path.join(context, 'Dockerfile'), 'utf8'));
  const ignorePath = path.join(context, '.dockerignore');
  const ignored = ignoredBy(existsSync(ignorePath) ? readFileSync(ignorePath, 'utf8') : '');
  let workdir = '/';
  for (const { keyword, args } of instructions) {
    if (keyword === 'WORKDIR') workdir = path.posix.resolve(workdir, args);
    if (keyword !== 'COPY' && keyword !== 'ADD') continue;
    const { sources, dest } = copyOf(args);
    const target = path.join(root, path.posix.resolve(workdir, dest));
    for (const source of sources) {
      const from = path.join(context, source);
      if (!existsSync(from)) throw new Error(`COPY ${args}: ${source} is not in the build context`);
      const into = dest.endsWith('/') || sources.length > 1 ? path.join(target, path.basename(source)) : target;
      mkdirSync(path.dirname(into), { recursive: true });
      cpSync(from, into, { recursive: true, filter: (f) => !ignored(path.relative(context, f)) });
    }
  }
  mkdirSync(path.join(root, workdir), { recursive: true });
  return { workdir, instructions };
};
