import { existsSync } from 'node:fs';

/**
 * The package's root (the directory of its package.json), found by walking up from this file:
 * the same whether the code runs from its TypeScript source or compiled under dist/, so the
 * files read at run time (SQL, the console, the version) are read from one place.
 */
export const packageRoot: URL = (() => {
  let dir = new URL('./', import.meta.url);
  for (;;) {
    if (existsSync(new URL('package.json', dir))) return dir;
    const up = new URL('../', dir);
    if (up.href === dir.href) throw new Error(`no package.json above ${import.meta.url}`);
    dir = up;
  }
})();
