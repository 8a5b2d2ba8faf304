import { generateKeyPairSync, sign } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signReceipt } from '../../../adapters/keys/audit-key.ts';
import { consistencyProof, leafHash as serverLeafHash, nodeHash as serverNodeHash, rootOf } from '../../../domain/audit/merkle.ts';

/**
 * The console's verifier (`console/verify.js`) is the very file the browser loads; here it runs
 * under Node's WebCrypto, so the code that turns an entry green is proven on the RFC 6962
 * vectors and against the server's own hashing and signing.
 */

interface VerifyModule {
  fromBase64(text: string): Uint8Array | null;
  leafHash(data: string | Uint8Array): Promise<Uint8Array>;
  nodeHash(l: Uint8Array, r: Uint8Array): Promise<Uint8Array>;
  verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: Uint8Array[], root: Uint8Array): Promise<boolean>;
  verifyConsistency(size1: number, size2: number, proof: Uint8Array[], root1: Uint8Array, root2: Uint8Array): Promise<boolean>;
  importPublicKey(pem: string): Promise<unknown>;
  checkpointSigned(key: unknown, cp: unknown): Promise<boolean>;
  canonicalJson(value: unknown): string;
  receiptSigned(key: unknown, receipt: unknown): Promise<boolean>;
  receiptTextSigned(key: unknown, text: string): Promise<boolean>;
  checkpointOfLog(key: unknown, cp: unknown, tenant: string, logName: string): Promise<{ signed: boolean; ofThisLog: boolean }>;
  extendsSeen(
    key: unknown,
    seen: unknown,
    cp: unknown,
    tenant: string,
    fetchProof: (from: number, to: number) => Promise<{ proof: string[] }>,
    logName: string,
  ): Promise<{ ok: boolean; reason: string } | null>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
// The module is plain JavaScript for the browser; it is loaded by URL, as the page loads it.
const verify = (await import(pathToFileURL(path.resolve(here, '../../../console/verify.js')).href)) as VerifyModule;

// A verbatim copy of ../shared/vectors/rfc6962 (Apache-2.0), so a clone tests on its own.
const vectors = path.resolve(here, '../../fixtures/rfc6962');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.json') ? [p] : [];
  });
const bytes = (s: string | null | undefined) => new Uint8Array(Buffer.from(s ?? '', 'base64'));
const proof = (p: string[] | null | undefined) => (p ?? []).map(bytes);
const name = (f: string) => path.relative(vectors, f);

describe('console/verify.js passes every RFC 6962 vector under WebCrypto (the wantErr cases refused)', () => {
  const inclusion = files(path.join(vectors, 'inclusion'));
  const consistency = files(path.join(vectors, 'consistency'));
  it('finds the vectors', () => {
    expect(inclusion.length).toBeGreaterThan(50);
    expect(consistency.length).toBeGreaterThan(50);
  });

  it.each(inclusion.map((f) => [name(f), f]))('inclusion %s', async (_n, file) => {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    expect(await verify.verifyInclusion(v.leafIdx, v.treeSize, bytes(v.leafHash), proof(v.proof), bytes(v.root))).toBe(!v.wantErr);
  });

  it.each(consistency.map((f) => [name(f), f]))('consistency %s', async (_n, file) => {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    expect(await verify.verifyConsistency(v.size1, v.size2, proof(v.proof), bytes(v.root1), bytes(v.root2))).toBe(!v.wantErr);
  });
});

describe('console/verify.js agrees with the server', () => {
  it('leaf and node hashes are the server’s', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), async (data, other) => {
        const leaf = await verify.leafHash(data);
        expect(Buffer.from(leaf).equals(serverLeafHash(data))).toBe(true);
        expect(Buffer.from(await verify.nodeHash(leaf, other)).equals(serverNodeHash(leaf, other))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('canonical JSON is RFC 8785’s, as the server signs it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(verify.canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 300 },
    );
  });

  it('base64 has one spelling: a changed last letter that decodes to the same bytes is refused', () => {
    expect(verify.fromBase64('AA==')).toEqual(new Uint8Array([0]));
    expect(verify.fromBase64('AB==')).toBeNull();
    expect(verify.fromBase64('A A=')).toBeNull();
  });
});

describe('signatures under WebCrypto Ed25519', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const receipt = signReceipt(privateKey, {
    kind: 'revocation',
    tenant: 'acme',
    epoch: 3,
    stopped: [{ job: 'j1', run: 1 }],
    indeterminate: [],
    note: 'Zoë → ünïcode',
    at: 1_700_000_000_000,
  });

  it('a checkpoint signed by the service verifies; another size or root does not', async () => {
    const key = await verify.importPublicKey(pem);
    const root = Buffer.alloc(32, 7).toString('base64');
    const cp = { origin: 'custodian/acme', size: 5, root, signature: sign(null, Buffer.from(`custodian/acme\n5\n${root}\n`), privateKey).toString('base64') };
    expect(await verify.checkpointSigned(key, cp)).toBe(true);
    expect(await verify.checkpointSigned(key, { ...cp, size: 6 })).toBe(false);
    expect(await verify.checkpointSigned(key, { ...cp, root: Buffer.alloc(32, 8).toString('base64') })).toBe(false);
    expect(await verify.checkpointSigned(key, { ...cp, origin: 'custodian/other' })).toBe(false);
  });

  it('a receipt signed by the service verifies, and one changed byte anywhere in it is refused', async () => {
    const key = await verify.importPublicKey(pem);
    const text = JSON.stringify(receipt);
    expect(await verify.receiptSigned(key, receipt)).toBe(true);
    expect(await verify.receiptTextSigned(key, text)).toBe(true);
    const accepted: string[] = [];
    const buf = Buffer.from(text);
    for (let i = 0; i < buf.length; i++) {
      const changed = Buffer.from(buf);
      changed[i] = changed[i]! ^ 0x01;
      if (await verify.receiptTextSigned(key, changed.toString('utf8'))) accepted.push(`byte ${i}`);
    }
    expect(accepted).toEqual([]);
  });

  it('a receipt under another key is refused', async () => {
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(await verify.receiptSigned(await verify.importPublicKey(other), receipt)).toBe(false);
  });

  it('a checkpoint kept from before is extended by a grown log, and not by a rewritten, shrunk or foreign one', async () => {
    const key = await verify.importPublicKey(pem);
    const tree = (texts: string[]) => {
      const leaves = texts.map((t) => serverLeafHash(Buffer.from(t)));
      const src = { node: async (level: number, index: number) => rootOf(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)) };
      const checkpoint = (size: number, origin = 'custodian/acme') => {
        const root = rootOf(leaves.slice(0, size)).toString('base64');
        return { origin, size, root, signature: sign(null, Buffer.from(`${origin}\n${size}\n${root}\n`), privateKey).toString('base64') };
      };
      const fetchProof = async (from: number, to: number) => ({ proof: (await consistencyProof(src, from, to)).map((b) => b.toString('base64')) });
      return { checkpoint, fetchProof };
    };
    const texts = Array.from({ length: 7 }, (_, i) => `entry ${i}`);
    const log = tree(texts);
    const seen = log.checkpoint(4);
    expect(await verify.checkpointOfLog(key, seen, 'acme', 'custodian')).toEqual({ signed: true, ofThisLog: true });
    expect(await verify.checkpointOfLog(key, seen, 'other', 'custodian')).toEqual({ signed: false, ofThisLog: false });
    expect(await verify.extendsSeen(key, null, log.checkpoint(7), 'acme', log.fetchProof, 'custodian')).toBeNull();
    expect(await verify.extendsSeen(key, seen, log.checkpoint(7), 'acme', log.fetchProof, 'custodian')).toMatchObject({ ok: true });
    expect(await verify.extendsSeen(key, seen, log.checkpoint(4), 'acme', log.fetchProof, 'custodian')).toMatchObject({ ok: true });
    const rewritten = tree(texts.map((t, i) => (i === 1 ? 'entry one, rewritten' : t)));
    expect(await verify.extendsSeen(key, seen, rewritten.checkpoint(7), 'acme', rewritten.fetchProof, 'custodian')).toMatchObject({ ok: false });
    expect(await verify.extendsSeen(key, log.checkpoint(7), log.checkpoint(4), 'acme', log.fetchProof, 'custodian')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('shrank'),
    });
    expect(await verify.extendsSeen(key, seen, log.checkpoint(7, 'custodian/other'), 'acme', log.fetchProof, 'custodian')).toMatchObject({ ok: false });
  });
});
