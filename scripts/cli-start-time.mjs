// How long `node bin/custodian.js --help` takes from spawn to exit, over 20 runs after one
// warm-up, beside `node -e 0` (Node's own start) for scale: `node scripts/cli-start-time.mjs [runs]`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const runs = Number(process.argv[2] ?? 20);
const bin = path.resolve(import.meta.dirname, '../bin/custodian.js');

const time = (args) => {
  spawnSync(process.execPath, args, { stdio: 'ignore' });
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const run = spawnSync(process.execPath, args, { stdio: 'ignore' });
    ms.push(performance.now() - t);
    if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}`);
  }
  ms.sort((a, b) => a - b);
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  return `mean ${mean.toFixed(1)} ms, median ${ms[Math.floor(ms.length / 2)].toFixed(1)} ms, min ${ms[0].toFixed(1)} ms, max ${ms.at(-1).toFixed(1)} ms`;
};

process.stdout.write(`node bin/custodian.js --help (${runs} runs): ${time([bin, '--help'])}\n`);
process.stdout.write(`node -e 0 (${runs} runs):                   ${time(['-e', '0'])}\n`);
