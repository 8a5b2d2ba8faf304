#!/usr/bin/env node
// The CLI compiled to dist/ (`npm run build`; `npm ci` builds it) while dist/ matches the
// TypeScript it was compiled from; otherwise (no build, or a source edited since) the
// TypeScript itself through tsx's loader, so a stale build never runs.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { URL } from 'node:url';

const root = new URL('../', import.meta.url);

/** True when every source dist/sources.json names is unchanged: same size and mtime, or same bytes (a packed tarball resets mtimes). */
const distIsCurrent = () => {
  let sources;
  try {
    sources = JSON.parse(readFileSync(new URL('dist/sources.json', root), 'utf8'));
  } catch {
    return false;
  }
  for (const [file, built] of Object.entries(sources)) {
    const url = new URL(file, root);
    const now = statSync(url, { throwIfNoEntry: false });
    if (!now || now.size !== built.size) return false;
    if (now.mtimeMs !== built.mtimeMs && createHash('sha256').update(readFileSync(url)).digest('hex') !== built.sha256) return false;
  }
  return true;
};

if (distIsCurrent()) {
  await import('../dist/adapters/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../adapters/cli/main.ts');
}
