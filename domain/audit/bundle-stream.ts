import { createFrontier } from './frontier.ts';
import { leafHash } from './merkle.ts';
import { alteredEntry, headProblems, seqOf, type AuditBundle, type Checkpoint, type Expected } from './verify.ts';
import { TILE_WIDTH } from './tiles.ts';

/**
 * The streamed form of a downloaded audit log (`custodian audit download`), JSON Lines: first
 * the head `{"format": BUNDLE_FORMAT, "checkpoint", "previous"?}`, then one record per entry
 * bundle of the tree, in order, `{"tile": N, "hashes": <base64 of the level-0 hash tile N>,
 * "entries": [<each entry's line>]}` (c2sp.org/tlog-tiles: 256 entries a record, the last one
 * partial). Each line is small, so neither writing nor checking it ever holds the whole log.
 */
export const BUNDLE_FORMAT = 'custodian.audit-bundle/v2';

export interface BundleHead {
  readonly format: typeof BUNDLE_FORMAT;
  readonly checkpoint: Checkpoint;
  readonly previous?: AuditBundle['previous'];
}

export interface BundleRecord {
  readonly tile: number;
  readonly hashes: string;
  readonly entries: readonly string[];
}

/** Whether a parsed first line is the head of a streamed bundle (else the file is a whole-document bundle). */
export const isBundleHead = (v: unknown): v is BundleHead => {
  const h = v as { format?: unknown; checkpoint?: Partial<Checkpoint>; previous?: { checkpoint?: Partial<Checkpoint>; proof?: unknown } } | null;
  const isCheckpoint = (c: Partial<Checkpoint> | undefined) =>
    typeof c === 'object' &&
    c !== null &&
    typeof c.origin === 'string' &&
    Number.isSafeInteger(c.size) &&
    typeof c.root === 'string' &&
    typeof c.signature === 'string';
  return (
    typeof h === 'object' &&
    h !== null &&
    h.format === BUNDLE_FORMAT &&
    isCheckpoint(h.checkpoint) &&
    (h.previous === undefined ||
      (typeof h.previous === 'object' &&
        h.previous !== null &&
        isCheckpoint(h.previous.checkpoint) &&
        Array.isArray(h.previous.proof) &&
        h.previous.proof.every((p) => typeof p === 'string')))
  );
};

/** Per-entry problems past this many are counted, not listed: a wholly foreign log would list a million. */
const LISTED = 1000;

const isRecord = (v: unknown): v is BundleRecord => {
  const r = v as Partial<BundleRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    Number.isSafeInteger(r.tile) &&
    typeof r.hashes === 'string' &&
    Array.isArray(r.entries) &&
    r.entries.every((e) => typeof e === 'string')
  );
};

/**
 * Checks a streamed bundle record by record, offline, with the public key alone, in O(log n)
 * memory: the head as any bundle's (headProblems); then each record's entries against their
 * hash tile (a mismatch names the altered entry) and their seq; the root recomputed from the
 * tile hashes and, separately, from the entries (compact ranges, createFrontier) must both be
 * the signed root, over exactly the checkpoint's size. `finish` answers every problem found.
 */
export const streamedBundleVerifier = (publicKeyPem: string, head: BundleHead, expected: Expected = {}) => {
  const cp = head.checkpoint;
  const problems = headProblems(publicKeyPem, cp, head.previous, expected);
  const fromEntries = createFrontier();
  const fromTiles = createFrontier();
  let unlisted = 0;
  let broken: string | null = null;
  const entryProblem = (p: string) => {
    if (problems.length < LISTED) problems.push(p);
    else unlisted++;
  };

  return {
    /** One record (parsed JSON), the `line`-th of the file (1-based, for the message). */
    record(value: unknown, line: number) {
      if (broken !== null) return;
      const expectedTile = Math.floor(fromEntries.size / TILE_WIDTH);
      if (!isRecord(value)) {
        broken = `line ${line} is not a tile record ({"tile", "hashes", "entries"}): the bundle is damaged; download it again`;
        return;
      }
      if (value.tile !== expectedTile || fromEntries.size % TILE_WIDTH !== 0) {
        broken = `line ${line} holds tile ${value.tile} where tile ${expectedTile} belongs: the bundle is damaged or reordered; download it again`;
        return;
      }
      const hashes = Buffer.from(value.hashes, 'base64');
      if (hashes.length !== value.entries.length * 32 || value.entries.length === 0 || value.entries.length > TILE_WIDTH) {
        broken = `tile ${value.tile} holds ${value.entries.length} entries and ${hashes.length / 32} hashes: a tile record holds 1 to ${TILE_WIDTH} of each, as many hashes as entries`;
        return;
      }
      value.entries.forEach((entry, j) => {
        const i = fromEntries.size;
        const leaf = leafHash(Buffer.from(entry));
        const held = hashes.subarray(j * 32, j * 32 + 32);
        const seq = seqOf(entry);
        if (seq !== i) entryProblem(`entry ${i}: its seq is ${String(seq)}`);
        if (!held.equals(leaf)) entryProblem(alteredEntry(i, seq));
        fromEntries.push(leaf);
        fromTiles.push(Buffer.from(held));
      });
    },
    finish(): string[] {
      const out = [...problems];
      if (unlisted > 0) out.push(`and ${unlisted} more problems with single entries`);
      if (broken !== null) return [...out, broken];
      if (fromEntries.size !== cp.size) return [...out, `the checkpoint covers ${cp.size} entries, the log holds ${fromEntries.size}`];
      const root = Buffer.from(cp.root, 'base64');
      if (!fromTiles.root().equals(root)) out.push("the bundle's hash tiles do not give the signed root: they are not this tree's");
      if (!fromEntries.root().equals(root)) out.push('the root recomputed from the whole log differs from the signed root');
      return out;
    },
  };
};
