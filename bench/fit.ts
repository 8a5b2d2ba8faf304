import { readdirSync, readFileSync } from 'node:fs';
import { getEncoding } from 'js-tiktoken';
import { weigh } from '../clients/typescript/src/fit/weigh.ts';

// weigh against js-tiktoken's encode over the fit corpus (test/fixtures/fit-corpus): the same
// documents, each timed over whole passes after a warm-up pass. SPEC §13 asks for ≥ 10×.
export const benchFit = (): void => {
  const dir = new URL('../test/fixtures/fit-corpus/docs/', import.meta.url);
  const docs = readdirSync(dir)
    .sort()
    .map((name) => readFileSync(new URL(name, dir), 'utf8'));
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0);
  const cl100k = getEncoding('cl100k_base');
  let sink = 0;
  // Passes until at least `ms` have gone by; the time of one pass.
  const time = (pass: () => void, ms: number): number => {
    pass();
    let passes = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      pass();
      passes++;
    }
    return (performance.now() - start) / passes;
  };
  const encode = time(() => {
    for (const d of docs) sink += cl100k.encode(d).length;
  }, 5000);
  const estimate = time(() => {
    for (const d of docs) sink += weigh(d);
  }, 2000);
  let error = 0;
  for (const d of docs) {
    const tokens = cl100k.encode(d).length;
    error += Math.abs(weigh(d) - tokens) / tokens;
  }
  const mb = bytes / 1e6;
  console.log(`\nfit: weigh vs js-tiktoken cl100k_base encode, ${docs.length} documents, ${(bytes / 1024).toFixed(0)} KiB`);
  console.log(`  js-tiktoken encode  ${encode.toFixed(1).padStart(8)} ms a pass  ${(mb / (encode / 1000)).toFixed(2).padStart(7)} MB/s`);
  console.log(`  weigh               ${estimate.toFixed(2).padStart(8)} ms a pass  ${(mb / (estimate / 1000)).toFixed(2).padStart(7)} MB/s`);
  console.log(`  weigh is ${(encode / estimate).toFixed(1)}× faster; MAPE ${((100 * error) / docs.length).toFixed(2)}% (sink ${sink > 0 ? 'ok' : 'empty'})`);
};
