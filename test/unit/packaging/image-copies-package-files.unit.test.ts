import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { copyOf, finalStage } from '../../support/dockerfile.ts';

const root = new URL('../../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

// The image runs the TypeScript the package ships: what one holds, the other must hold, but
// dist/ (the compiled SDK, which only other projects import) and the documents.
describe('the image copies the package files', () => {
  const files: string[] = JSON.parse(read('package.json')).files;
  const copied = finalStage(read('Dockerfile'))
    .filter((i) => i.keyword === 'COPY')
    .flatMap((i) => copyOf(i.args).sources.map((s) => s.replace(/\/$/, '')));

  it('copies package.json and the lock file before installing, so the install layer is cached', () => {
    const stage = finalStage(read('Dockerfile'));
    const firstCopy = stage.findIndex((i) => i.keyword === 'COPY');
    const install = stage.findIndex((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
    expect(copyOf(stage[firstCopy]!.args).sources.sort()).toEqual(['package-lock.json', 'package.json']);
    expect(install).toBeGreaterThan(firstCopy);
  });

  it('copies every entry of package.json "files" but dist and the documents, and nothing else', () => {
    const runtime = files.filter((f) => f !== 'dist' && !f.endsWith('.md'));
    expect(files).toContain('dist');
    expect(copied.filter((s) => s !== 'package.json' && s !== 'package-lock.json').sort()).toEqual([...runtime].sort());
  });
});
