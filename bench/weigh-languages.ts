// The speed of weigh in each language on the same corpus (test/fixtures/fit-corpus, 252
// documents): js-tiktoken's encode (the tokenizer weigh estimates), the TypeScript weigh, the Go
// fit.Weigh and the Python custodian.fit.weigh. Each figure is the best of several passes.
// Run: node --import tsx bench/weigh-languages.ts
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getEncoding } from 'js-tiktoken';
import { weigh } from '../sdk/fit.ts';
import { CLIENTS_GO, python, ROOT } from '../test/support/python.ts';

const dir = `${ROOT}test/fixtures/fit-corpus/docs/`;
const texts = readdirSync(dir)
  .sort()
  .map((f) => readFileSync(dir + f, 'utf8'));
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);

const best = (runs: number, pass: () => void): number => {
  let ms = Infinity;
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    pass();
    ms = Math.min(ms, performance.now() - start);
  }
  return ms;
};

const enc = getEncoding('cl100k_base');
const tiktoken = best(3, () => texts.forEach((t) => enc.encode(t)));
best(5, () => texts.forEach((t) => weigh(t))); // warm the JIT
const ts = best(20, () => texts.forEach((t) => weigh(t)));
const go = (() => {
  const out = execFileSync('go', ['test', '-run', '^$', '-bench', 'BenchmarkWeighCorpus', '-count', '5', './fit'], { cwd: CLIENTS_GO, encoding: 'utf8' });
  const ns = [...out.matchAll(/BenchmarkWeighCorpus\S*\s+\d+\s+(\d+) ns\/op/g)].map((m) => Number(m[1]));
  return Math.min(...ns) / 1e6;
})();
const [pyCold, pyWarm] = execFileSync(python(), [`${ROOT}bench/weigh.py`, '10'], { encoding: 'utf8' })
  .trim()
  .split(' ')
  .map(Number) as [number, number];

const rows: Array<[string, number]> = [
  ['js-tiktoken encode (cl100k_base)', tiktoken],
  ['TypeScript weigh', ts],
  ['Go fit.Weigh', go],
  ['Python weigh (cold)', pyCold],
  ['Python weigh (warm)', pyWarm],
];
console.log(`weigh over ${texts.length} documents, ${(bytes / 1024).toFixed(0)} KiB (best pass, ms; × = against the TypeScript weigh)`);
for (const [name, ms] of rows)
  console.log(
    `${name.padEnd(34)} ${ms.toFixed(2).padStart(9)} ms  ${(ms / ts).toFixed(2).padStart(7)}×  ${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1).padStart(7)} MiB/s`,
  );
