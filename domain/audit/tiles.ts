/**
 * C2SP tlog-tiles (c2sp.org/tlog-tiles): the tree cut into tiles of height 8. The hash tile at
 * level L, index N holds the hashes of tree level 8·L, nodes [256·N, 256·N + W) — 32 bytes each,
 * W = 256 when full. Entry bundle N holds entries [256·N, 256·N + W), each as a big-endian
 * uint16 length and its bytes. N is written in three-digit groups, every group but the last
 * prefixed with `x` (1234067 → `x001/x234/067`); a partial tile's path ends in `.p/<W>`,
 * 1 ≤ W ≤ 255. Paths and rules as transparency-dev/tessera's `api/layout` reads them.
 */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
/** The most bytes one entry may have in a bundle (its uint16 length prefix). */
export const MAX_BUNDLED_ENTRY = 0xffff;

export type TilePath =
  | { readonly kind: 'hashes'; readonly level: number; readonly index: number; readonly width: number | null }
  | { readonly kind: 'entries'; readonly index: number; readonly width: number | null };

export type TilePathProblem = { readonly problem: string };

/** N in three-digit groups: `x001/x234/067`. */
export const formatIndex = (n: number): string => {
  let path = String(n % 1000).padStart(3, '0');
  for (let rest = Math.floor(n / 1000); rest > 0; rest = Math.floor(rest / 1000)) path = `x${String(rest % 1000).padStart(3, '0')}/${path}`;
  return path;
};

const withWidth = (n: number, width: number | null) => `${formatIndex(n)}${width === null ? '' : `.p/${width}`}`;
export const hashTilePath = (level: number, n: number, width: number | null = null) => `tile/${level}/${withWidth(n, width)}`;
export const entriesPath = (n: number, width: number | null = null) => `tile/entries/${withWidth(n, width)}`;

const HOW = 'a tile path is tile/<level>/<N> or tile/entries/<N>, N in three-digit groups like x001/x234/067, a partial tile ending .p/<1-255>';

/** The groups of N (`x001/x234/067`): every group three digits, all but the last prefixed with x. */
const parseIndex = (groups: readonly string[]): number | TilePathProblem => {
  let n = 0;
  for (const [i, group] of groups.entries()) {
    const last = i === groups.length - 1;
    const digits = last ? group : group.startsWith('x') ? group.slice(1) : null;
    if (digits === null || !/^[0-9]{3}$/.test(digits))
      return { problem: `${JSON.stringify(group)}: ${last ? 'the last group of N is three digits' : 'a group of N before the last is x and three digits'}` };
    // One name per tile (as formatIndex writes it): a leading group of zeros is no group.
    if (i === 0 && !last && digits === '000') return { problem: `${JSON.stringify(group)}: N has no leading x000 group (tile 1 is 001, not x000/001)` };
    n = n * 1000 + Number(digits);
  }
  // Beyond 2^53 no tree of this service reaches: refused as a path that names no tile.
  if (!Number.isSafeInteger(n)) return { problem: 'N is beyond any tree this log can hold' };
  return n;
};

/**
 * The tile a path under `tile/` names, or what is wrong with it. `rest` is the path after
 * `tile/`, as received (no decoding beyond the router's).
 */
export const parseTilePath = (rest: string): TilePath | TilePathProblem => {
  const parts = rest.split('/');
  const head = parts[0] ?? '';
  const isEntries = head === 'entries';
  if (!isEntries && !/^(0|[1-9][0-9]?)$/.test(head)) return { problem: `${JSON.stringify(head)}: the tile level is 0 to 63 or "entries"; ${HOW}` };
  const level = isEntries ? 0 : Number(head);
  if (level > 63) return { problem: `tile level ${level}: the tile level is 0 to 63` };
  let groups = parts.slice(1);
  let width: number | null = null;
  const beforeWidth = groups.at(-2);
  if (beforeWidth?.endsWith('.p')) {
    const w = groups.at(-1)!;
    if (!/^[1-9][0-9]{0,2}$/.test(w) || Number(w) > TILE_WIDTH - 1) return { problem: `width ${JSON.stringify(w)}: a partial tile's width is 1 to 255` };
    width = Number(w);
    groups = [...groups.slice(0, -2), beforeWidth.slice(0, -2)];
  }
  if (groups.length === 0 || (groups.length === 1 && groups[0] === '')) return { problem: `no tile index: ${HOW}` };
  // N fits in 2^53 with six groups; more is a malformed path, not a number to parse.
  if (groups.length > 6) return { problem: `too many groups in N: ${HOW}` };
  const index = parseIndex(groups);
  if (typeof index !== 'number') return { problem: `${index.problem}; ${HOW}` };
  return isEntries ? { kind: 'entries', index, width } : { kind: 'hashes', level, index, width };
};

/**
 * The nodes a tile holds in a tree of `size` leaves: tree level, first index and count. Null
 * when the tree has not reached them: a full tile needs all 256, a partial one its W (any W
 * up to what the tree holds — the first W hashes of a tile never change). Entry bundles are
 * the leaves' tile (level 0).
 */
export const tileSpan = (tile: TilePath, size: number): { treeLevel: number; from: number; count: number } | null => {
  const level = tile.kind === 'hashes' ? tile.level : 0;
  // Integer division by 256^level; a level whose first node is beyond any tree holds nothing.
  const atLevel = level * TILE_HEIGHT >= 53 ? 0 : Math.floor(size / 2 ** (level * TILE_HEIGHT));
  const count = tile.width ?? TILE_WIDTH;
  const from = tile.index * TILE_WIDTH;
  return from + count <= atLevel ? { treeLevel: level * TILE_HEIGHT, from, count } : null;
};

/** Whether the tile is full (immutable, cached for a year) rather than partial. */
export const isFull = (tile: TilePath) => tile.width === null;

/** The partial width of tile `index` at `level` in a tree of `size` (null: full). As tessera's layout.PartialTileSize. */
export const partialWidth = (level: number, index: number, size: number): number | null => {
  const atLevel = Math.floor(size / 2 ** (level * TILE_HEIGHT));
  return index < Math.floor(atLevel / TILE_WIDTH) ? null : atLevel % TILE_WIDTH;
};

/** An entry bundle: each entry's bytes after its big-endian uint16 length. Throws for an entry over 65,535 bytes. */
export const bundleOf = (entries: readonly Uint8Array[]): Buffer => {
  const parts: Buffer[] = [];
  for (const e of entries) {
    if (e.length > MAX_BUNDLED_ENTRY) throw new RangeError(`an entry of ${e.length} bytes does not fit an entry bundle (at most ${MAX_BUNDLED_ENTRY})`);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(e.length);
    parts.push(len, Buffer.from(e));
  }
  return Buffer.concat(parts);
};

/** The entries of a bundle, or null when its bytes are not a sequence of length-prefixed entries. */
export const entriesOf = (bundle: Uint8Array): Buffer[] | null => {
  const buf = Buffer.from(bundle.buffer, bundle.byteOffset, bundle.byteLength);
  const entries: Buffer[] = [];
  for (let at = 0; at < buf.length;) {
    if (at + 2 > buf.length) return null;
    const len = buf.readUInt16BE(at);
    if (at + 2 + len > buf.length) return null;
    entries.push(buf.subarray(at + 2, at + 2 + len));
    at += 2 + len;
  }
  return entries;
};

/** The hashes of a hash tile, or null when its length is not a whole number of 32-byte hashes. */
export const hashesOf = (tile: Uint8Array): Buffer[] | null => {
  if (tile.length % 32 !== 0) return null;
  const buf = Buffer.from(tile.buffer, tile.byteOffset, tile.byteLength);
  return Array.from({ length: tile.length / 32 }, (_, i) => buf.subarray(i * 32, i * 32 + 32));
};
