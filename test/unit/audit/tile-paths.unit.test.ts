import { describe, expect, it } from 'vitest';
import {
  bundleOf,
  entriesOf,
  entriesPath,
  formatIndex,
  hashesOf,
  hashTilePath,
  parseTilePath,
  partialWidth,
  tileSpan,
  type TilePath,
} from '../../../domain/audit/tiles.ts';

const parsed = (p: string) => parseTilePath(p) as TilePath;

describe('tile paths (c2sp.org/tlog-tiles, as tessera api/layout writes them)', () => {
  it('N is written in three-digit groups, every group but the last prefixed with x', () => {
    expect(formatIndex(0)).toBe('000');
    expect(formatIndex(7)).toBe('007');
    expect(formatIndex(999)).toBe('999');
    expect(formatIndex(1000)).toBe('x001/000');
    expect(formatIndex(1234067)).toBe('x001/x234/067');
    expect(hashTilePath(1, 1234067)).toBe('tile/1/x001/x234/067');
    expect(hashTilePath(0, 5, 17)).toBe('tile/0/005.p/17');
    expect(entriesPath(1000, 1)).toBe('tile/entries/x001/000.p/1');
  });

  it('every path written parses back to the same tile', () => {
    for (const n of [0, 1, 999, 1000, 1001, 1234067, 2 ** 45 + 3])
      for (const w of [null, 1, 255]) {
        expect(parseTilePath(hashTilePath(3, n, w).slice('tile/'.length))).toEqual({ kind: 'hashes', level: 3, index: n, width: w });
        expect(parseTilePath(entriesPath(n, w).slice('tile/'.length))).toEqual({ kind: 'entries', index: n, width: w });
      }
  });

  it('a group that is not three digits, an x on the last group or none before it, is refused with what a path looks like', () => {
    for (const p of ['0/1', '0/0000', '0/x000', '0/001/000', '0/x1/000', '0/x001/x000', '0/x00a/000', '0/', '0', 'entries/', 'entries/x001'])
      expect(parseTilePath(p), p).toEqual({ problem: expect.stringMatching(/three digits|no tile index|x001\/x234\/067/) });
  });

  it('a partial width is 1 to 255, in plain decimal', () => {
    expect(parsed('0/000.p/1').width).toBe(1);
    expect(parsed('0/000.p/255').width).toBe(255);
    for (const w of ['0', '256', '01', '-1', '1.0', 'x', ''])
      expect(parseTilePath(`0/000.p/${w}`), w).toEqual({ problem: expect.stringMatching(/width .* 1 to 255|no tile index/) });
  });

  it('a tile level is 0 to 63 in plain decimal, or "entries"', () => {
    expect(parsed('63/000').kind).toBe('hashes');
    for (const l of ['64', '01', '-1', 'a', 'Entries', '']) expect(parseTilePath(`${l}/000`), l).toEqual({ problem: expect.stringMatching(/tile level/) });
  });

  it('an index beyond 2^53, or more groups than reach it, is refused, not rounded', () => {
    expect(parseTilePath('0/x009/x007/x199/x254/x740/991')).toEqual({ kind: 'hashes', level: 0, index: Number.MAX_SAFE_INTEGER, width: null });
    expect(parseTilePath('0/x009/x007/x199/x254/x740/992')).toEqual({ problem: expect.stringMatching(/beyond any tree/) });
    expect(parseTilePath('0/x999/x999/x999/x999/x999/999')).toEqual({ problem: expect.stringMatching(/beyond any tree/) });
    expect(parseTilePath('0/x001/x001/x001/x001/x001/x001/001')).toEqual({ problem: expect.stringMatching(/too many groups/) });
  });
});

describe('which tiles a tree holds', () => {
  const span = (p: string, size: number) => tileSpan(parsed(p), size);

  it('a full tile exists once the tree holds all 256 of its nodes; tile level L reads tree level 8L', () => {
    expect(span('0/000', 255)).toBeNull();
    expect(span('0/000', 256)).toEqual({ treeLevel: 0, from: 0, count: 256 });
    expect(span('0/001', 530)).toEqual({ treeLevel: 0, from: 256, count: 256 });
    expect(span('1/000', 65535)).toBeNull();
    expect(span('1/000', 65536)).toEqual({ treeLevel: 8, from: 0, count: 256 });
    expect(span('entries/002', 768)).toEqual({ treeLevel: 0, from: 512, count: 256 });
  });

  it('a partial tile of width W exists when the tree covers W nodes of it, also after the tile filled (its hashes never change)', () => {
    expect(span('0/002.p/18', 530)).toEqual({ treeLevel: 0, from: 512, count: 18 });
    expect(span('0/002.p/19', 530)).toBeNull();
    expect(span('0/001.p/3', 530)).toEqual({ treeLevel: 0, from: 256, count: 3 });
    expect(span('1/000.p/2', 530)).toEqual({ treeLevel: 8, from: 0, count: 2 });
    expect(span('1/000.p/3', 530)).toBeNull();
  });

  it('a tile beyond the tree, at any level up to 63, is none', () => {
    expect(span('0/003', 530)).toBeNull();
    expect(span('2/000.p/1', 530)).toBeNull();
    expect(span('63/000.p/1', Number.MAX_SAFE_INTEGER)).toBeNull();
    expect(span('0/000.p/1', 0)).toBeNull();
  });

  it("the partial width of the tree's last tile is as tessera's layout.PartialTileSize", () => {
    expect(partialWidth(0, 2, 530)).toBe(18);
    expect(partialWidth(0, 1, 530)).toBeNull();
    expect(partialWidth(1, 0, 530)).toBe(2);
    expect(partialWidth(0, 2, 512)).toBe(0);
  });
});

describe('tile and bundle bytes', () => {
  it('an entry bundle is each entry after its big-endian uint16 length, and reads back the same', () => {
    const entries = [Buffer.from('{"seq":0}'), Buffer.alloc(0), Buffer.from('é'), Buffer.alloc(300, 97)];
    const bundle = bundleOf(entries);
    expect(bundle.subarray(0, 2)).toEqual(Buffer.from([0, 9]));
    expect(bundle.length).toBe(entries.reduce((n, e) => n + 2 + e.length, 0));
    expect(bundle.readUInt16BE(2 + 9 + 2 + 0 + 2 + 2)).toBe(300);
    expect(entriesOf(bundle)).toEqual(entries);
  });

  it('an entry longer than 65,535 bytes does not fit a bundle and is refused, never truncated', () => {
    expect(bundleOf([Buffer.alloc(65535)])).toHaveLength(65537);
    expect(() => bundleOf([Buffer.alloc(65536)])).toThrow(/does not fit an entry bundle/);
  });

  it('a bundle cut inside a length or an entry is not one', () => {
    const bundle = bundleOf([Buffer.from('abc'), Buffer.from('de')]);
    for (let cut = 1; cut < bundle.length; cut++) if (cut !== 5) expect(entriesOf(bundle.subarray(0, cut)), String(cut)).toBeNull();
    expect(entriesOf(bundle.subarray(0, 5))).toEqual([Buffer.from('abc')]);
  });

  it('a hash tile is whole 32-byte hashes', () => {
    expect(hashesOf(Buffer.alloc(64))).toHaveLength(2);
    expect(hashesOf(Buffer.alloc(63))).toBeNull();
  });
});
