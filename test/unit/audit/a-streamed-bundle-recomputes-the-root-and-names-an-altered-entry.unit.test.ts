import { createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BUNDLE_FORMAT, isBundleHead, streamedBundleVerifier, type BundleHead } from '../../../domain/audit/bundle-stream.ts';
import { checkpointText } from '../../../domain/audit/entries.ts';
import { createFrontier } from '../../../domain/audit/frontier.ts';
import { leafHash, rootOf } from '../../../domain/audit/merkle.ts';
import { TILE_WIDTH } from '../../../domain/audit/tiles.ts';

const { privateKey } = generateKeyPairSync('ed25519');
const pem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
const ORIGIN = 'log.test/custodian/acme';

const lines = (n: number) => Array.from({ length: n }, (_, seq) => `{"at":${1700000000000 + seq},"kind":"hold_placed","reason":"r${seq}","seq":${seq}}`);

/** A streamed bundle of `entries` as download writes it: the head, then one record per 256 entries. */
const bundle = (entries: readonly string[], signedSize = entries.length) => {
  const leaves = entries.map((e) => leafHash(Buffer.from(e)));
  const root = rootOf(leaves.slice(0, signedSize)).toString('base64');
  const signature = sign(null, Buffer.from(checkpointText(ORIGIN, signedSize, root)), privateKey).toString('base64');
  const head: BundleHead = { format: BUNDLE_FORMAT, checkpoint: { origin: ORIGIN, size: signedSize, root, signature } };
  const records = [];
  for (let t = 0; t * TILE_WIDTH < entries.length; t++) {
    const span = [t * TILE_WIDTH, Math.min(entries.length, (t + 1) * TILE_WIDTH)] as const;
    records.push({ tile: t, hashes: Buffer.concat(leaves.slice(...span)).toString('base64'), entries: entries.slice(...span) });
  }
  return { head, records };
};

const verify = (b: { head: BundleHead; records: unknown[] }) => {
  const v = streamedBundleVerifier(pem, b.head, { tenant: 'acme' });
  b.records.forEach((r, i) => v.record(r, i + 2));
  return v.finish();
};

describe('the right-edge frontier gives the RFC 6962 root of every size', () => {
  it('agrees with the recursive root for sizes 0 to 600', () => {
    const f = createFrontier();
    const leaves = lines(600).map((l) => leafHash(Buffer.from(l)));
    expect(f.root()).toEqual(rootOf([]));
    leaves.forEach((leaf, i) => {
      f.push(leaf);
      expect(f.root(), `size ${i + 1}`).toEqual(rootOf(leaves.slice(0, i + 1)));
    });
  });
});

describe('a streamed bundle is checked record by record', () => {
  it('verifies a log of several tiles, the last one partial', () => {
    const b = bundle(lines(3 * TILE_WIDTH + 17));
    expect(isBundleHead(JSON.parse(JSON.stringify(b.head)))).toBe(true);
    expect(verify(b)).toEqual([]);
  });

  it('names the one altered entry, and the root recomputed from the entries differs', () => {
    const b = bundle(lines(600));
    const rec = b.records[1]!;
    const altered = { ...rec, entries: rec.entries.map((e, j) => (j === 44 ? e.replace('"r300"', '"r3OO"') : e)) };
    const problems = verify({ head: b.head, records: [b.records[0], altered, b.records[2]] });
    expect(problems).toEqual([
      'entry 300 (seq 300) is not the entry the signed tree holds: it was altered',
      'the root recomputed from the whole log differs from the signed root',
    ]);
  });

  it('refuses hash tiles of another tree, a missing tile, reordered tiles and a log longer than the checkpoint', () => {
    const b = bundle(lines(600));
    const swapped = { ...b.records[0]!, hashes: Buffer.alloc(TILE_WIDTH * 32, 1).toString('base64') };
    expect(verify({ head: b.head, records: [swapped, ...b.records.slice(1)] })).toContain(
      "the bundle's hash tiles do not give the signed root: they are not this tree's",
    );
    expect(verify({ head: b.head, records: b.records.slice(0, 2) })).toEqual(['the checkpoint covers 600 entries, the log holds 512']);
    expect(verify({ head: b.head, records: [b.records[1], b.records[0], b.records[2]] })).toEqual([
      'line 2 holds tile 1 where tile 0 belongs: the bundle is damaged or reordered; download it again',
    ]);
    const longer = bundle(lines(600), 512);
    expect(verify(longer)).toEqual(['the checkpoint covers 512 entries, the log holds 600']);
  });

  it('refuses a record that is not a tile record, and a checkpoint the key did not sign', () => {
    const b = bundle(lines(10));
    expect(verify({ head: b.head, records: [null] })).toEqual([
      'line 2 is not a tile record ({"tile", "hashes", "entries"}): the bundle is damaged; download it again',
    ]);
    const forged = { ...b.head, checkpoint: { ...b.head.checkpoint, size: 11 } };
    expect(verify({ head: forged, records: b.records })).toEqual([
      'the checkpoint signature does not verify with this public key',
      'the checkpoint covers 11 entries, the log holds 10',
    ]);
  });
});
