import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The very file the browser loads.
const here = path.dirname(fileURLToPath(import.meta.url));
const { cosignersOf } = (await import(pathToFileURL(path.resolve(here, '../../../console/audit-log.js')).href)) as {
  cosignersOf: (checkpoint: { cosignatures?: string[] }) => string[];
};

describe('the console names the witnesses that cosigned the checkpoint', () => {
  it('by the key name of each cosignature line, in order', () => {
    expect(cosignersOf({ cosignatures: ['\u2014 witness.example/w1 AAAAAQ==', '\u2014 witness.example/w2 AAAAAg=='] })).toEqual([
      'witness.example/w1',
      'witness.example/w2',
    ]);
  });

  it('none when the checkpoint has no cosignature (or is an older answer without the field)', () => {
    expect(cosignersOf({ cosignatures: [] })).toEqual([]);
    expect(cosignersOf({})).toEqual([]);
  });
});
