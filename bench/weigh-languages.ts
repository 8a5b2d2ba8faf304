// The speed of weigh in each language on the same corpus (test/fixtures/fit-corpus, 252
// documents): js-tiktoken's encode (the tokenizer weigh estimates), the TypeScript weigh, the Go
// fit.Weigh and the Python custodian.fit.weigh. Each figure is the processor time of the best of
// several passes, except
// "first pass": the first one in a fresh process (the Python import, the module's tables, timed
// apart). Python "cold" is a pass over text it has not seen (every cache of token costs emptied
// first); the bound it is held to is 10× the TypeScript weigh after the JIT has warmed up.
// Run: node --import tsx bench/weigh-languages.ts
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { weigh } from '../sdk/fit.ts';
import { CLIENTS_GO, python, ROOT } from '../test/support/python.ts';

const dir = `${ROOT}test/fixtures/fit-corpus/docs/`;
const texts = readdirSync(dir)
  .sort()
  .map((f) => readFileSync(dir + f, 'utf8'));
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);

// Processor time (this process's, user and system), not wall time: on a busy machine the other
// processes inflate the wall time of a long pass more than a short one's, and so the ratios.
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const best = (runs: number, pass: () => void): number => {
  let ms = Infinity;
  for (let r = 0; r < runs; r++) {
    const start = cpuMs();
    pass();
    ms = Math.min(ms, cpuMs() - start);
  }
  return ms;
};

const tsFirst = best(1, () => texts.forEach((t) => weigh(t)));
const enc = getEncoding('cl100k_base');
const tiktoken = best(3, () => texts.forEach((t) => enc.encode(t)));
best(5, () => texts.forEach((t) => weigh(t))); // warm the JIT
const ts = best(20, () => texts.forEach((t) => weigh(t)));
const go = (() => {
  const out = execFileSync('go', ['test', '-run', '^$', '-bench', 'BenchmarkWeighCorpus', '-count', '5', './fit'], { cwd: CLIENTS_GO, encoding: 'utf8' });
  const ns = [...out.matchAll(/BenchmarkWeighCorpus\S*\s+\d+\s+\d+ ns\/op\s+(\d+) cpu-ns\/op/g)].map((m) => Number(m[1]));
  return Math.min(...ns) / 1e6;
})();
// The Python module's bytecode is compiled once beforehand, as pip install does, so the import
// times loading it rather than compiling the source.
const pycache = mkdtempSync(join(tmpdir(), 'weigh-pycache-'));
const pyEnv = { ...process.env, PYTHONPYCACHEPREFIX: pycache, PYTHONDONTWRITEBYTECODE: '' };
execFileSync(python(), ['-c', 'import sys; sys.path.insert(0, sys.argv[1]); import custodian.fit', `${ROOT}clients/python`], { env: pyEnv });
const [pyImport, pyFirst, pyCold, pyNew, pyWarm] = execFileSync(python(), [`${ROOT}bench/weigh.py`, '20'], { encoding: 'utf8', env: pyEnv })
  .trim()
  .split(' ')
  .map(Number) as [number, number, number, number, number];
rmSync(pycache, { recursive: true, force: true });

const rows: Array<[string, number]> = [
  ['js-tiktoken encode (cl100k_base)', tiktoken],
  ['TypeScript weigh (first pass)', tsFirst],
  ['TypeScript weigh', ts],
  ['Go fit.Weigh', go],
  ['Python import of custodian.fit', pyImport],
  ['Python weigh (first pass)', pyFirst],
  ['Python weigh (cold: unseen text)', pyCold],
  ['Python weigh (new documents)', pyNew],
  ['Python weigh (warm: seen text)', pyWarm],
];
console.log(`weigh over ${texts.length} documents, ${(bytes / 1024).toFixed(0)} KiB (processor time of the best pass, ms; × = against the TypeScript weigh)`);
for (const [name, ms] of rows)
  console.log(
    `${name.padEnd(34)} ${ms.toFixed(2).padStart(9)} ms  ${(ms / ts).toFixed(2).padStart(7)}×  ${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1).padStart(7)} MiB/s`,
  );
