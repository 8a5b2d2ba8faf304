// Writes the shared fit vectors (test/fixtures/fit-vectors/) from the TypeScript library; the
// Python and Go clients' tests read them. Run after a change to clients/typescript/src/fit:
//   node --import tsx scripts/fit-vectors.ts
import { writeFileSync } from 'node:fs';
import { VECTORS, vectorFiles } from '../test/support/fit-vectors.ts';

for (const [name, text] of Object.entries(vectorFiles())) {
  writeFileSync(new URL(name, VECTORS), text);
  console.log(`wrote test/fixtures/fit-vectors/${name} (${text.length} characters)`);
}
