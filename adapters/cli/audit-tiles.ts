import { entriesOf, entriesPath, hashTilePath, partialWidth, TILE_WIDTH } from '../../domain/audit/tiles.ts';
import { CliFailure } from './failure.ts';

/** How many tiles are fetched at once: enough to hide the round trips, few enough to be polite. */
const IN_FLIGHT = 8;

/**
 * A tree of `size` entries read as C2SP tlog-tiles under `log` (…/audit/log/): every entry
 * bundle and level-0 hash tile, two requests per 256 entries (a 10⁶-entry log is ~7,800
 * requests, not one per entry). Answers the entries' lines in order and the tiles in base64.
 */
export const readTiles = async (get: (method: string, route: string) => Promise<Buffer>, log: string, size: number) => {
  const count = Math.ceil(size / TILE_WIDTH);
  const entries: string[] = new Array<string>(size);
  const tiles: string[] = new Array<string>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const width = partialWidth(0, i, size);
      const want = width ?? TILE_WIDTH;
      const [bundle, tile] = await Promise.all([get('GET', `${log}${entriesPath(i, width)}`), get('GET', `${log}${hashTilePath(0, i, width)}`)]);
      const lines = entriesOf(bundle);
      if (lines === null || lines.length !== want)
        throw new CliFailure(`entry bundle ${i} is not ${want} length-prefixed entries: check that --url is a Custodian service that serves tlog-tiles`);
      if (tile.length !== want * 32)
        throw new CliFailure(`hash tile 0/${i} is not ${want} hashes: check that --url is a Custodian service that serves tlog-tiles`);
      lines.forEach((line, j) => (entries[i * TILE_WIDTH + j] = line.toString('utf8')));
      tiles[i] = tile.toString('base64');
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, worker));
  return { entries, tiles };
};
