import { entriesOf, entriesPath, hashTilePath, partialWidth, TILE_WIDTH } from '../../domain/audit/tiles.ts';
import { CliFailure } from './failure.ts';

/** How many tiles are fetched at once: enough to hide the round trips, few enough to be polite. */
const IN_FLIGHT = 8;

export interface FetchedTile {
  readonly index: number;
  /** The entries' lines, in order. */
  readonly entries: readonly string[];
  /** The level-0 hash tile: each entry's leaf hash as the signed tree holds it. */
  readonly hashes: Buffer;
}

/**
 * A tree of `size` entries read as C2SP tlog-tiles under `log` (…/audit/log/): every entry
 * bundle and level-0 hash tile, two requests per 256 entries (a 10⁶-entry log is ~7,800
 * requests, not one per entry). Each tile goes to `take` in order, as soon as it and those
 * before it are here; at most IN_FLIGHT tiles are held, so a log of any size streams through.
 */
export const streamTiles = async (
  get: (method: string, route: string) => Promise<Buffer>,
  log: string,
  size: number,
  take: (tile: FetchedTile) => Promise<void> | void,
) => {
  const count = Math.ceil(size / TILE_WIDTH);
  const fetchTile = async (i: number): Promise<FetchedTile> => {
    const width = partialWidth(0, i, size);
    const want = width ?? TILE_WIDTH;
    const [bundle, hashes] = await Promise.all([get('GET', `${log}${entriesPath(i, width)}`), get('GET', `${log}${hashTilePath(0, i, width)}`)]);
    const lines = entriesOf(bundle);
    if (lines === null || lines.length !== want)
      throw new CliFailure(`entry bundle ${i} is not ${want} length-prefixed entries: check that --url is a Custodian service that serves tlog-tiles`);
    if (hashes.length !== want * 32)
      throw new CliFailure(`hash tile 0/${i} is not ${want} hashes: check that --url is a Custodian service that serves tlog-tiles`);
    return { index: i, entries: lines.map((l) => l.toString('utf8')), hashes };
  };
  const pending: Promise<FetchedTile>[] = [];
  let next = 0;
  const more = () => {
    const p = fetchTile(next++);
    // Awaited in order below; until then a failure must not count as unhandled.
    p.catch(() => undefined);
    pending.push(p);
  };
  while (next < count && pending.length < IN_FLIGHT) more();
  while (pending.length > 0) {
    const tile = await pending.shift()!;
    if (next < count) more();
    await take(tile);
  }
};
