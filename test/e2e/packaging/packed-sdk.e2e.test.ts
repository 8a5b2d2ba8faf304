import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitDocument, weigh } from '../../../clients/typescript/src/fit/index.ts';
import { firstRunEnv, REPO } from '../../support/npm-start.ts';

/**
 * What another project gets: `npm pack` (which builds dist/ by its prepare script), the tarball
 * installed into a fresh project from the npm cache, and the SDK imported there under plain
 * node, no TypeScript loader.
 */
const work = mkdtempSync(path.join(tmpdir(), 'custodian-packed-'));
const project = path.join(work, 'project');
const env = { ...firstRunEnv({}), NODE_OPTIONS: '', npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
const { version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
const PAGE = '# A\n\nOne.\n\n## B\n\nTwo.\n';
let tarball = '';
let files: string[] = [];

const run = (file: string, args: string[], cwd: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

const must = async (file: string, args: string[], cwd: string) => {
  const result = await run(file, args, cwd);
  if (result.code !== 0) throw new Error(`${file} ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
  return result;
};

beforeAll(async () => {
  const packed = await must('npm', ['pack', '--json', '--pack-destination', work], REPO);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = path.join(work, info!.filename);
  files = info!.files.map((f) => f.path);
  await import('node:fs').then(({ mkdirSync }) => mkdirSync(project));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'a-plugin', private: true, type: 'module' }));
  await must('npm', ['install', tarball, '--no-audit', '--no-fund'], project);
}, 900_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package, installed into another project', () => {
  it('holds the compiled SDK and its declarations, and no tests', () => {
    for (const entry of ['sdk/fit', 'sdk/records']) {
      expect(files).toContain(`dist/${entry}.js`);
      expect(files).toContain(`dist/${entry}.d.ts`);
    }
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('bench/'))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'CHANGELOG.md', 'bin/custodian.js']));
  });

  it('every relative import in dist/ names a file the tarball holds', () => {
    const held = new Set(files);
    const missing = files
      .filter((f) => f.startsWith('dist/') && (f.endsWith('.js') || f.endsWith('.d.ts')))
      .flatMap((f) => {
        const text = readFileSync(path.join(project, 'node_modules', 'custodian', f), 'utf8');
        const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
        return specifiers
          .map((s) => path.posix.join(path.posix.dirname(f), f.endsWith('.d.ts') ? s.replace(/\.ts$/, '.d.ts').replace(/\.js$/, '.d.ts') : s))
          .filter((target) => !held.has(target))
          .map((target) => `${f} -> ${target}`);
      });
    expect(missing).toEqual([]);
  });

  it('custodian/fit and custodian/sdk import under plain node and work', async () => {
    writeFileSync(
      path.join(project, 'use.mjs'),
      [
        "import { weigh, fitDocument } from 'custodian/fit';",
        "import { createRecords } from 'custodian/sdk';",
        "const records = createRecords({ store: 'memory', collections: { notes: { fields: ['topic'] } } });",
        "await records.put('notes', 'n1', { topic: 'pricing', text: 'hello world' });",
        `const fitted = fitDocument(${JSON.stringify(PAGE)}, { query: 'B', budget: 100, head: 'page.md' });`,
        'console.log(JSON.stringify({',
        "  tokens: weigh('hello world'),",
        "  got: await records.get('notes', 'n1'),",
        "  found: (await records.query('notes', { topic: 'pricing' })).map((e) => e.id),",
        "  absent: await records.get('notes', 'n2'),",
        '  collections: records.collections,',
        '  fitted,',
        '}));',
      ].join('\n'),
    );
    const used = await run(process.execPath, ['use.mjs'], project);
    expect(used.stderr).toBe('');
    expect(JSON.parse(used.stdout)).toEqual({
      tokens: weigh('hello world'),
      got: { topic: 'pricing', text: 'hello world' },
      found: ['n1'],
      absent: null,
      collections: ['notes'],
      fitted: fitDocument(PAGE, { query: 'B', budget: 100, head: 'page.md' }),
    });
  });

  it('npx custodian --version prints the package version', async () => {
    const result = await run('npx', ['--no-install', 'custodian', '--version'], project);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  }, 120_000);
});
