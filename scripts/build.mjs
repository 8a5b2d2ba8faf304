// `npm run build` (and `prepare`, which `npm ci` and `npm pack` run): compiles the CLI, the
// service it starts and the SDK into dist/ with tsc, then records in dist/sources.json the
// TypeScript each file was compiled from, so bin/custodian.js runs dist/ only while it matches.
// `--if-possible` (prepare): without TypeScript installed (npm ci --omit=dev), or when tsc
// fails, an install says so and leaves dist/ out instead of failing; the CLI then runs its
// TypeScript through tsx. `npm pack` and `npm publish` fail instead: a package needs its dist/.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const ifPossible = process.argv.includes('--if-possible') && !['pack', 'publish'].includes(process.env.npm_command ?? '');

let tsc;
try {
  tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  if (!ifPossible) throw new Error('typescript is not installed: run npm ci (with dev dependencies) first');
  process.stderr.write('custodian: typescript is not installed, so dist/ is not built; the CLI runs its TypeScript through tsx\n');
  process.exit(0);
}

rmSync(dist, { recursive: true, force: true });
const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (run.status !== 0) {
  rmSync(dist, { recursive: true, force: true });
  if (!ifPossible) process.exit(run.status ?? 1);
  process.stderr.write('custodian: tsc failed (above), so dist/ is not built; the CLI runs its TypeScript through tsx\n');
  process.exit(0);
}

/** Every dist/**\/*.js, as the relative path of the .ts it came from. */
const sourcesOf = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourcesOf(full);
    return e.name.endsWith('.js') ? [path.relative(dist, full).slice(0, -'.js'.length) + '.ts'] : [];
  });

const sources = {};
for (const file of sourcesOf(dist).sort()) {
  const full = path.join(root, file);
  const { mtimeMs, size } = statSync(full);
  sources[file.split(path.sep).join('/')] = { mtimeMs, size, sha256: createHash('sha256').update(readFileSync(full)).digest('hex') };
}
writeFileSync(path.join(dist, 'sources.json'), `${JSON.stringify(sources)}\n`);
