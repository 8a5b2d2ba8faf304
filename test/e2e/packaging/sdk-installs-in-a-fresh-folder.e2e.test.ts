import { execFile } from 'node:child_process';
import { builtinModules } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weigh } from '../../../clients/typescript/src/fit/index.ts';
import { firstRunEnv, REPO } from '../../support/npm-start.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * What an agent's project gets from the SDK package (clients/typescript): its packed tarball and
 * its folder, each installed into a fresh project with npm, bring the SDK and `fit` and nothing
 * else (no dependency at all), and a plain `node` ESM script there (no TypeScript loader) keeps
 * and reads a record on a running service and catches a refusal as a `RecordsError`.
 */
const PACKAGE = path.join(REPO, 'clients/typescript');
const work = mkdtempSync(path.join(tmpdir(), 'custodian-sdk-'));
const env = { ...firstRunEnv({}), NODE_OPTIONS: '', npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
let service: TestService;
let key = '';
let packed: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };

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

/** A fresh project: a package.json of its own, then `npm install` of what an agent author is told to install. */
const freshProject = async (name: string, what: string) => {
  const dir = path.join(work, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  await must('npm', ['install', '--no-audit', '--no-fund', what], dir);
  return dir;
};

/** Every package npm put under node_modules (a scoped one as @scope/name), and the bytes of their files. */
const installed = (dir: string) => {
  const modules = path.join(dir, 'node_modules');
  const names = readdirSync(modules)
    .filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? readdirSync(path.join(modules, n)).map((m) => `${n}/${m}`) : [n]));
  const bytes = (p: string): number => {
    const s = statSync(p);
    return s.isDirectory() ? readdirSync(p).reduce((sum, n) => sum + bytes(path.join(p, n)), 0) : s.size;
  };
  return { names, bytes: names.reduce((sum, n) => sum + bytes(path.join(modules, n)), 0) };
};

/** A plain node script, as an agent author writes one: put, get, query, and refusals caught by their status and code. */
const SCRIPT = `
import { createRecords, recordsClient, RecordsError, RECORD_LIMITS } from '@custodian/sdk';
import { weigh } from '@custodian/sdk/fit';

const [url, key] = process.argv.slice(2);
const records = createRecords({ url, key, collections: { notes: { fields: ['topic'] } } });
await records.put('notes', 'n1', { topic: 'deploy', text: 'Wednesdays. Never Fridays.' });
const caught = async (f) => {
  try {
    await f();
    return 'no refusal';
  } catch (e) {
    return { isRecordsError: e instanceof RecordsError, isError: e instanceof Error, status: e.status, code: e.code, message: e.message };
  }
};
console.log(JSON.stringify({
  got: await records.get('notes', 'n1'),
  found: (await records.query('notes', { topic: 'deploy' })).map((e) => e.id),
  absent: await records.get('notes', 'n2'),
  collections: records.collections,
  valueBytes: RECORD_LIMITS.valueBytes,
  tokens: weigh('hello world'),
  undeclared: await caught(() => records.put('drafts', 'd1', { text: 'x' })),
  wrongKey: await caught(() => recordsClient(url, 'not-a-key').collections()),
  notJson: await caught(() => records.put('notes', 'n3', { at: new Date() })),
}));
`;

/** What a TypeScript project type-checks against the package's declarations. */
const TYPED = `
import { createRecords, RecordsError, type Records } from '@custodian/sdk';
import { fitDocument, type FitNote } from '@custodian/sdk/fit';

const records: Records = createRecords({ url: 'http://127.0.0.1:1', key: 'k', collections: { notes: { fields: ['topic'] } } });
const names: readonly string[] = records.collections;
const note: FitNote | null = fitDocument('# A', { budget: 100 }).fit;
const status = (e: unknown): number | null => (e instanceof RecordsError ? e.status : null);
export { names, note, status };
`;

beforeAll(async () => {
  const pack = await must('npm', ['pack', '--json', '--pack-destination', work], PACKAGE);
  packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as (typeof packed)[])[0]!;
  service = await startTestService();
  expect((await service.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  key = (await service.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'fresh' })).body.key;
}, 900_000);
afterAll(async () => {
  await service?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the SDK package, installed into a fresh folder', () => {
  it('its tarball holds the compiled SDK and fit with their declarations, and no source or tests', () => {
    const files = packed.files.map((f) => f.path);
    for (const entry of ['index', 'fit/index']) expect(files).toEqual(expect.arrayContaining([`dist/${entry}.js`, `dist/${entry}.d.ts`]));
    expect(files.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md')).toEqual([]);
  });

  it('its compiled code imports only its own files and node:', () => {
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    const outside = packed.files
      .map((f) => f.path)
      .filter((f) => f.endsWith('.js'))
      .flatMap((f) => [...readFileSync(path.join(PACKAGE, f), 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => `${f}: ${m[1]}`))
      .filter((s) => {
        const specifier = s.slice(s.indexOf(': ') + 2);
        return !specifier.startsWith('./') && !specifier.startsWith('../') && !builtins.has(specifier);
      });
    expect(outside).toEqual([]);
  });

  it.each([
    ['its packed tarball', () => path.join(work, packed.filename)],
    [
      'its folder in a checkout',
      () => {
        // Unbuilt, as in a fresh clone: npm runs the package's prepare, which compiles it.
        rmSync(path.join(PACKAGE, 'dist'), { recursive: true, force: true });
        return PACKAGE;
      },
    ],
  ])(
    '%s: npm installs one package and no dependency; a plain node script puts, gets and catches RecordsError',
    async (what, source) => {
      const dir = await freshProject(what.replace(/\W+/g, '-'), source());
      const { names, bytes } = installed(dir);
      console.log(
        `sdk install (${what}): ${names.length} package (${names.join(', ')}), ${names.length - 1} dependencies, ${bytes} bytes in node_modules; tarball ${packed.size} bytes, ${packed.unpackedSize} unpacked`,
      );
      expect(names).toEqual(['@custodian/sdk']);
      expect(bytes).toBeLessThan(1024 * 1024);

      writeFileSync(path.join(dir, 'use.mjs'), SCRIPT);
      const used = await run(process.execPath, ['use.mjs', service.url, key], dir);
      expect(used.stderr).toBe('');
      expect(JSON.parse(used.stdout)).toEqual({
        got: { topic: 'deploy', text: 'Wednesdays. Never Fridays.' },
        found: ['n1'],
        absent: null,
        collections: ['notes'],
        valueBytes: 65_536,
        tokens: weigh('hello world'),
        undeclared: {
          isRecordsError: true,
          isError: true,
          status: 404,
          code: 'not_found',
          message: expect.stringMatching(/^records: no collection named drafts: /),
        },
        wrongKey: { isRecordsError: true, isError: true, status: 401, code: 'unauthorized', message: expect.any(String) },
        notJson: {
          isRecordsError: true,
          isError: true,
          status: 0,
          code: 'invalid',
          message: 'records: value.at is a Date: keep a time as milliseconds (Date.now()) or ISO text',
        },
      });

      // No @types/node in the project: the declarations must stand on their own.
      writeFileSync(path.join(dir, 'typed.ts'), TYPED);
      const options = { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', types: [] };
      writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['typed.ts'] }));
      const checked = await run(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', '.'], dir);
      expect(checked.stdout + checked.stderr).toBe('');
    },
    600_000,
  );
});
