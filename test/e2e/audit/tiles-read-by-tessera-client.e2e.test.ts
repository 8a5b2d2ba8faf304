import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { leafHash } from '../../../domain/audit/merkle.ts';
import { entriesOf, hashesOf } from '../../../domain/audit/tiles.ts';
import { goProgram } from '../../support/go-verifier.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

// Writing a few hundred entries and reading every tile is slow on a busy machine; nothing is timed.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });

const ORIGIN = 'audit.tiles.example/custodian';
const bin = goProgram('go-tiles');
if (!bin && process.env.CI === 'true') throw new Error('go is not installed: CI must run the tessera-client and x/mod tlog checks of the tiles');
if (!bin) console.log('go is not installed: the tessera-client and x/mod tlog checks of the tiles skip');
let svc: TestService;
let dir: string;
let vkey: string;
let auditorKey: string;
let otherAuditorKey: string;
/** The checkpoint note at 300 entries, before the log grew to 530. */
let earlier: string;

const logUrl = (tenant: string) => `${svc.url}/v1/tenants/${tenant}/audit/log/`;
const get = async (p: string, key: string | null = ADMIN_KEY) => {
  const res = await fetch(`${svc.url}${p}`, { headers: key === null ? {} : { authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type') ?? '', cache: res.headers.get('cache-control') ?? '', bytes, text: bytes.toString() };
};
const holds = async (tenant: string, from: number, n: number) => {
  // Each hold placed is one audit entry.
  for (let i = from; i < from + n; i++)
    expect((await svc.admin('POST', `/v1/tenants/${tenant}/holds`, { selector: { data_subject: `user:s${i}` }, reason: `r${i}` })).status).toBe(201);
  await svc.runner.catchUp();
};
const size = async (tenant: string) => Number((await get(`/v1/tenants/${tenant}/audit/log/checkpoint`)).text.split('\n')[1]);
const goTiles = (args: string[]) =>
  new Promise<{ code: number; out: string }>((resolve) => {
    execFile(bin!, args, { encoding: 'utf8', maxBuffer: 16 << 20 }, (error, stdout) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: stdout }),
    );
  });

beforeAll(async () => {
  svc = await startTestService({ logOrigin: ORIGIN });
  dir = mkdtempSync(path.join(tmpdir(), 'custodian-tiles-'));
  for (const t of ['acme', 'globex']) expect((await svc.admin('POST', '/v1/tenants', { id: t })).status).toBe(201);
  auditorKey = (await svc.admin('POST', '/v1/tenants/acme/auditor-keys', {})).body.key;
  otherAuditorKey = (await svc.admin('POST', '/v1/tenants/globex/auditor-keys', {})).body.key;
  vkey = (await get('/v1/audit-key?format=vkey')).text.trim();
  // Past the first full tile of 256 leaves, into a partial second one (counted from the entries
  // the set-up above made, once the audit log has them).
  await svc.runner.catchUp();
  await holds('acme', 0, 300 - (await size('acme')));
  earlier = (await get('/v1/tenants/acme/audit/log/checkpoint')).text;
  // More entries: two full tiles of leaves and a partial one, and a partial tile at level 1.
  await holds('acme', 1000, 230);
  await holds('globex', 0, 3);
});
afterAll(async () => {
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!bin)("the audit log as C2SP tlog-tiles, read by transparency-dev/tessera's client and x/mod's tlog (Go)", () => {
  it('tessera client and x/mod tlog verify the note, every tile, sampled inclusion proofs, a consistency proof between two checkpoints and every entry bundle', async () => {
    expect(earlier.split('\n')[1]).toBe('300');
    writeFileSync(path.join(dir, 'earlier.note'), earlier);
    const run = await goTiles([
      '-log',
      logUrl('acme'),
      '-vkey',
      vkey,
      '-origin',
      `${ORIGIN}/acme`,
      '-auth',
      `Bearer ${auditorKey}`,
      '-old',
      path.join(dir, 'earlier.note'),
      '-bundles',
    ]);
    console.log(run.out);
    expect(run.code).toBe(0);
    expect(run.out).toContain('OK checkpoint opened under the vkey by tessera client.FetchCheckpoint and x/mod note.Open: size 530');
    expect(run.out).toContain('OK x/mod tlog.TileHashReader: all 530 leaf hashes read from tiles');
    expect(run.out).toMatch(/OK inclusion proofs of \d+ sampled entries built by tessera ProofBuilder and x\/mod tlog.ProveRecord/);
    expect(run.out).toContain('OK consistency proof 300 -> 530');
    expect(run.out).toContain('OK 3 entry bundles read by tessera client.GetEntryBundle');
    expect(run.out).toContain('OK a tile with one byte changed is refused');
    expect(run.out).toMatch(/PASS 6 checks/);
  });

  it('with audit_public "hashes" the Go client verifies checkpoint, tiles and proofs with no key at all', async () => {
    expect((await svc.admin('PATCH', '/v1/tenants/globex', { audit_public: 'hashes' })).status).toBe(200);
    const run = await goTiles(['-log', logUrl('globex'), '-vkey', vkey, '-origin', `${ORIGIN}/globex`]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/PASS 4 checks/);
    // Entry bundles still need a key: the same client without one fails on them.
    const bundles = await goTiles(['-log', logUrl('globex'), '-vkey', vkey, '-origin', `${ORIGIN}/globex`, '-bundles']);
    expect(bundles.code).toBe(1);
    expect(bundles.out).toMatch(/FAIL client.GetEntryBundle\(0\).*401/);
  });
});

describe('tile routes: paths, bytes, access and caching as c2sp.org/tlog-tiles gives them', () => {
  it('a full hash tile is 256 hashes, the leaf hashes of the JSON Lines stream, immutable for a year; a partial one its width, short-lived', async () => {
    const lines = (await get('/v1/tenants/acme/audit')).text.split('\n').filter(Boolean);
    const full = await get('/v1/tenants/acme/audit/log/tile/0/000');
    expect(full.status).toBe(200);
    expect(full.type).toBe('application/octet-stream');
    expect(full.cache).toBe('private, max-age=31536000, immutable');
    const hashes = hashesOf(full.bytes)!;
    expect(hashes).toHaveLength(256);
    for (const [i, h] of hashes.entries()) expect(h.equals(leafHash(Buffer.from(lines[i]!)))).toBe(true);
    const n = lines.length;
    expect(n).toBe(530);
    const partial = await get(`/v1/tenants/acme/audit/log/tile/0/002.p/${n - 512}`);
    expect(partial.status).toBe(200);
    expect(partial.cache).toBe('private, max-age=5');
    expect(hashesOf(partial.bytes)!.map((h) => h.toString('hex'))).toEqual(lines.slice(512).map((l) => leafHash(Buffer.from(l)).toString('hex')));
    // A partial tile of any width the tree covers is the full tile's prefix (its hashes never change).
    const second = await get('/v1/tenants/acme/audit/log/tile/0/001');
    expect((await get('/v1/tenants/acme/audit/log/tile/0/001.p/3')).bytes.equals(second.bytes.subarray(0, 96))).toBe(true);
    // Level 1 holds the roots of the two full level-0 tiles: a partial tile of width 2.
    expect((await get('/v1/tenants/acme/audit/log/tile/1/000.p/2')).bytes).toHaveLength(64);
  });

  it("an entry bundle is each entry's line after its big-endian uint16 length, exactly the JSON Lines stream's lines", async () => {
    const lines = (await get('/v1/tenants/acme/audit')).text.split('\n').filter(Boolean);
    const full = await get('/v1/tenants/acme/audit/log/tile/entries/000', auditorKey);
    expect(full.status).toBe(200);
    expect(full.bytes.readUInt16BE(0)).toBe(Buffer.byteLength(lines[0]!));
    expect(entriesOf(full.bytes)!.map(String)).toEqual(lines.slice(0, 256));
    const partial = await get(`/v1/tenants/acme/audit/log/tile/entries/002.p/${lines.length - 512}`, auditorKey);
    expect(entriesOf(partial.bytes)!.map(String)).toEqual(lines.slice(512));
  });

  it('the checkpoint is the signed note as text/plain; charset=utf-8, short-lived', async () => {
    const cp = await get('/v1/tenants/acme/audit/log/checkpoint', auditorKey);
    expect(cp.status).toBe(200);
    expect(cp.type).toBe('text/plain; charset=utf-8');
    expect(cp.cache).toBe('private, max-age=5');
    expect(cp.text).toMatch(new RegExp(`^${ORIGIN}/acme\\n\\d+\\n[A-Za-z0-9+/]{43}=\\n\\n\u2014 `));
  });

  it('the checkpoint and hash tiles need the admin or an auditor key of the tenant; entry bundles always do', async () => {
    for (const p of ['checkpoint', 'tile/0/000', 'tile/entries/000']) {
      expect((await get(`/v1/tenants/acme/audit/log/${p}`, null)).status).toBe(401);
      expect((await get(`/v1/tenants/acme/audit/log/${p}`, otherAuditorKey)).status).toBe(401);
      expect((await get(`/v1/tenants/acme/audit/log/${p}`, auditorKey)).status).toBe(200);
    }
    const refused = await get('/v1/tenants/acme/audit/log/tile/0/000', null);
    expect(JSON.parse(refused.text).reason).toContain('audit_public');
  });

  it('audit_public "hashes" opens the checkpoint and hash tiles to anyone (cacheable publicly), never the entry bundles', async () => {
    expect((await svc.admin('PATCH', '/v1/tenants/globex', { audit_public: 'hashes' })).status).toBe(200);
    const cp = await get('/v1/tenants/globex/audit/log/checkpoint', null);
    expect(cp.status).toBe(200);
    expect(cp.cache).toBe('public, max-age=5');
    const n = Number(cp.text.split('\n')[1]);
    expect((await get(`/v1/tenants/globex/audit/log/tile/0/000.p/${n}`, null)).status).toBe(200);
    expect((await get(`/v1/tenants/globex/audit/log/tile/entries/000.p/${n}`, null)).status).toBe(401);
    // Another tenant's setting opens nothing of acme's.
    expect((await get('/v1/tenants/acme/audit/log/tile/0/000', null)).status).toBe(401);
    expect((await svc.admin('PATCH', '/v1/tenants/globex', { audit_public: 'none' })).status).toBe(200);
    expect((await get('/v1/tenants/globex/audit/log/checkpoint', null)).status).toBe(401);
    expect((await svc.admin('PATCH', '/v1/tenants/globex', { audit_public: 'everything' })).status).toBe(400);
  });

  it('a malformed tile path is a 400 that says what to change; a tile beyond the tree a 404; never a 500', async () => {
    const bad = [
      'tile/0/1',
      'tile/0/x1/000',
      'tile/0/001/000',
      'tile/0/x000',
      'tile/0/000.p/0',
      'tile/0/000.p/256',
      'tile/0/000.p/01',
      'tile/0/000.p/x',
      'tile/64/000',
      'tile/01/000',
      'tile/a/000',
      'tile/0/',
      'tile/entries/000.p/256',
      'tile/entries/abc',
      'tile/0/x001/x002/x003/x004/x005/x006/007',
    ];
    for (const p of bad) {
      const r = await get(`/v1/tenants/acme/audit/log/${p}`);
      expect({ p, status: r.status }).toEqual({ p, status: 400 });
      const body = JSON.parse(r.text);
      expect(body.error).toBe('invalid');
      expect(body.message).toMatch(/./);
    }
    for (const p of ['tile/0/003', 'tile/0/002.p/255', 'tile/1/000', 'tile/2/000.p/1', 'tile/63/x999/999', 'tile/entries/x001/000', 'tile/entries/003.p/1']) {
      const r = await get(`/v1/tenants/acme/audit/log/${p}`);
      expect({ p, status: r.status }).toEqual({ p, status: 404 });
      expect(JSON.parse(r.text).reason).toMatch(/the log holds \d+ entries/);
    }
    expect((await get('/v1/tenants/nobody/audit/log/tile/0/000')).status).toBe(404);
  });
});
