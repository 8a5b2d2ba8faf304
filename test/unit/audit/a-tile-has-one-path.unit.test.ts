import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIndex, parseTilePath } from '../../../domain/audit/tiles.ts';

describe('a tile has one path: N is read only as formatIndex writes it', () => {
  it.each(['0/x000/001', '0/x000/x000/000.p/3', 'entries/x000/255', '1/x000/x001/000'])('given %s (a leading x000 group), then it names no tile', (path) => {
    expect(parseTilePath(path)).toHaveProperty('problem');
  });

  it('given any N below 2^53, then its written path reads back as N, at every level and for bundles', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.integer({ min: 0, max: 63 }), (n, level) => {
        expect(parseTilePath(`${level}/${formatIndex(n)}`)).toEqual({ kind: 'hashes', level, index: n, width: null });
        expect(parseTilePath(`entries/${formatIndex(n)}.p/7`)).toEqual({ kind: 'entries', index: n, width: 7 });
      }),
    );
  });
});
