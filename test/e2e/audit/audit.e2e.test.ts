import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leafHash, verifyConsistency, verifyInclusion } from '../../../domain/audit/merkle.ts';
import { checkpointSigned, type Checkpoint } from '../../../domain/audit/verify.ts';
import { caller, type Caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BODY = `audit-body-marker-${Date.now()}`;
let svc: TestService;
let pem: string;
let dir: string;
let ada: Caller;
let bob: Caller;

const get = async (p: string) => {
  const res = await fetch(`${svc.url}${p}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  return res.text();
};
const lines = async (q = '') => (await get(`/v1/tenants/acme/audit${q}`)).split('\n').filter(Boolean);
const checkpoint = async () => JSON.parse(await get('/v1/tenants/acme/audit/checkpoint')) as Checkpoint;
const b64 = (s: string) => Buffer.from(s, 'base64');
const cli = async (...args: string[]) => {
  try {
    const r = await promisify(execFile)(process.execPath, [path.join(root, 'bin/custodian.js'), ...args], {
      encoding: 'utf8',
      env: { ...process.env, CUSTODIAN_URL: svc.url, CUSTODIAN_ADMIN_KEY: ADMIN_KEY },
      maxBuffer: 64 << 20,
    });
    return { code: 0, out: r.stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
};

beforeAll(async () => {
  svc = await startTestService();
  dir = mkdtempSync(path.join(tmpdir(), 'custodian-audit-'));
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe', 'clerk'] });
  ada = await caller(svc, 'acme', { input: 'audit', start: { subject: 'user:ada' } });
  bob = await caller(svc, 'acme', { input: 'audit', agent: 'clerk', start: { subject: 'user:bob' } });
  await ada.rec({ op: 'put', scope: 'tenant', record_key: 'r1', body: { text: BODY }, expect: 0 });
  await ada.rec({ op: 'put', scope: 'tenant', record_key: 'r1', body: { text: `${BODY} v2` }, expect: 1 });
  await bob.rec({ op: 'get', scope: 'tenant', record_key: 'r1', version: 1 });
  await bob.rec({ op: 'list' });
  pem = await (await fetch(`${svc.url}/v1/audit-key`)).text();
  writeFileSync(path.join(dir, 'audit.pem'), pem);
  await svc.runner.catchUp();
});
afterAll(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the audit log', () => {
  it('records job starts, envelope blocks, writes and reads, naming job, agent, purpose, subject and versions, never bodies', async () => {
    const all = await lines();
    const entries = all.map((l) => JSON.parse(l));
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i));
    const kinds = entries.map((e) => e.kind);
    for (const k of ['job_started', 'envelope_block', 'write', 'read']) expect(kinds).toContain(k);
    expect(entries.find((e) => e.kind === 'read' && e.op === 'get')).toMatchObject({
      job: bob.job,
      agent: 'clerk',
      subject: 'user:bob',
      records: [{ scope: 'tenant', key: 'r1', version: 1 }],
    });
    expect(entries.find((e) => e.kind === 'write')).toMatchObject({
      job: ada.job,
      agent: 'scribe',
      subject: 'user:ada',
      records: [{ scope: 'tenant', key: 'r1', version: 1 }],
    });
    expect(all.join('\n')).not.toContain(BODY);
  });

  it('filters select lines without changing them; ready answer: who read record R at version V', async () => {
    const all = await lines();
    const read = await lines('?record=tenant%23r1%231&kind=read');
    expect(read.map((l) => JSON.parse(l).job)).toEqual([bob.job]);
    expect(read.every((l) => all.includes(l))).toBe(true);
    expect((await lines(`?job=${ada.job}`)).every((l) => JSON.parse(l).job === ada.job)).toBe(true);
    expect((await lines('?subject=user:bob')).length).toBeGreaterThan(0);
    const who = await cli('audit', 'replay', '--tenant', 'acme', '--who-read', 'tenant#r1#1');
    expect(who.code).toBe(0);
    expect(who.out).toContain(bob.job);
    expect(who.out).not.toContain(ada.job);
  });

  it('signs checkpoints and serves inclusion and consistency proofs that verify', async () => {
    const cp = await checkpoint();
    // No origin configured: the log's name is derived from this deployment's audit key.
    expect(cp.origin).toMatch(/^custodian\.invalid\/[0-9a-f]{16}\/acme$/);
    expect(checkpointSigned(pem, cp)).toBe(true);
    expect(checkpointSigned(pem, { ...cp, size: cp.size - 1 })).toBe(false);
    const all = await lines();
    for (const i of [0, Math.floor(cp.size / 2), cp.size - 1]) {
      const p = JSON.parse(await get(`/v1/tenants/acme/audit/proof?leaf=${i}&size=${cp.size}`));
      expect(b64(p.leaf_hash).equals(leafHash(Buffer.from(all[i]!)))).toBe(true);
      expect(verifyInclusion(i, cp.size, b64(p.leaf_hash), p.proof.map(b64), b64(cp.root))).toBe(true);
    }
    const refused = await fetch(`${svc.url}/v1/tenants/acme/audit/proof?leaf=${cp.size}&size=${cp.size}`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(refused.status).toBe(400);
  });

  it('a checkpoint taken before more activity is consistent with one taken after', async () => {
    const before = await checkpoint();
    writeFileSync(path.join(dir, 'before.json'), JSON.stringify(before));
    await ada.rec({ op: 'put', scope: 'tenant', record_key: 'r2', body: { n: 1 }, expect: 0 });
    const revoked = await svc.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'kill_agent', agent: 'notes/clerk' }] });
    expect(revoked.body.stopped).toEqual([bob.job]);
    await svc.runner.catchUp();
    const after = await checkpoint();
    expect(after.size).toBeGreaterThan(before.size);
    const p = JSON.parse(await get(`/v1/tenants/acme/audit/proof?from=${before.size}&to=${after.size}`));
    expect(verifyConsistency(before.size, after.size, p.proof.map(b64), b64(before.root), b64(after.root))).toBe(true);

    // Ready answer: which jobs did revocation epoch 2 stop, under which receipt.
    const epoch = await cli('audit', 'replay', '--tenant', 'acme', '--revocation-epoch', '2');
    expect(JSON.parse(epoch.out)).toMatchObject({ epoch: 2, stopped: [bob.job], receipt: { signature: revoked.body.receipt.signature } });

    // Offline: download with the earlier checkpoint, verify with the public key alone.
    const bundle = await cli('audit', 'download', '--tenant', 'acme', '--previous', path.join(dir, 'before.json'));
    expect(bundle.code).toBe(0);
    writeFileSync(path.join(dir, 'bundle.json'), bundle.out);
    const verified = await cli('audit', 'verify', path.join(dir, 'bundle.json'), '--public-key', path.join(dir, 'audit.pem'), '--tenant', 'acme');
    expect(verified).toEqual({ code: 0, out: expect.stringContaining(`consistent with the checkpoint of size ${before.size}`) });

    // A bundle saved as one document by an earlier version ({checkpoint, entries, tiles, previous}) still verifies.
    const [head, ...records] = bundle.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const document = {
      checkpoint: head.checkpoint,
      previous: head.previous,
      entries: records.flatMap((r) => r.entries),
      tiles: records.map((r) => r.hashes),
    };
    writeFileSync(path.join(dir, 'one-document.json'), JSON.stringify(document));
    const old = await cli('audit', 'verify', path.join(dir, 'one-document.json'), '--public-key', path.join(dir, 'audit.pem'), '--tenant', 'acme');
    expect(old).toEqual({ code: 0, out: expect.stringContaining(`verified: ${head.checkpoint.size} entries`) });
  });

  it('altering one stored entry makes audit verify fail and name the entry', async () => {
    await svc.runner.catchUp();
    const { rows } = await svc.pool.query(`SELECT seq, line FROM custodian_audit_lines WHERE tenant = 'acme' AND kind = 'read' ORDER BY seq LIMIT 1`);
    const seq = Number(rows[0].seq);
    await svc.pool.query(`UPDATE custodian_audit_lines SET line = replace(line, $3, 'user:eve') WHERE tenant = 'acme' AND seq = $1 AND line LIKE $2`, [
      seq,
      '%user:bob%',
      'user:bob',
    ]);
    const bundle = await cli('audit', 'download', '--tenant', 'acme');
    writeFileSync(path.join(dir, 'tampered.json'), bundle.out);
    const verified = await cli('audit', 'verify', path.join(dir, 'tampered.json'), '--public-key', path.join(dir, 'audit.pem'), '--tenant', 'acme');
    expect(verified.code).toBe(1);
    expect(verified.out).toContain(`entry ${seq} (seq ${seq}) is not the entry the signed tree holds`);
    expect(verified.out).toContain('recomputed from the whole log differs');
    // Only that entry is named.
    expect(verified.out.match(/is not the entry/g)).toHaveLength(1);
    // A changed byte in the bundle itself is caught too.
    const [head, ...records] = readFileSync(path.join(dir, 'bundle.json'), 'utf8').split('\n');
    const edited = JSON.parse(head!);
    edited.checkpoint.size += 1;
    writeFileSync(path.join(dir, 'edited.json'), [JSON.stringify(edited), ...records].join('\n'));
    expect((await cli('audit', 'verify', path.join(dir, 'edited.json'), '--public-key', path.join(dir, 'audit.pem'), '--tenant', 'acme')).out).toContain(
      'signature does not verify',
    );
  });
});
