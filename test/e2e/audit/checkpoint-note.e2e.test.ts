import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkpointText } from '../../../domain/audit/entries.ts';
import { inclusionProof, leafHash, rootOf, type NodeSource } from '../../../domain/audit/merkle.ts';
import { formatNote, parseVkey, signatureLine, type NoteKey } from '../../../domain/audit/note.ts';
import { goVerifier, runGoVerifier } from '../../support/go-verifier.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { addCheckpointBody, startWitness } from '../../support/witness.ts';
import { sign } from 'node:crypto';

// Each check runs the CLI as an auditor would, a process each: slow on a busy machine, not timed.
vi.setConfig({ testTimeout: 300_000 });

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const ORIGIN_A = 'audit.a.example/custodian';
const ORIGIN_B = 'audit.b.example/custodian';
let a: TestService;
let b: TestService;
let dir: string;
let vkeyA: string;
let logKey: NoteKey;
let witness: ReturnType<typeof startWitness>;
let pemFile: string;

const get = async (svc: TestService, p: string, accept = 'application/json') => {
  const res = await fetch(`${svc.url}${p}`, { headers: { authorization: `Bearer ${ADMIN_KEY}`, accept } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};
const noteOf = async (svc: TestService, tenant: string, size?: number) =>
  (await get(svc, `/v1/tenants/${tenant}/audit/checkpoint${size === undefined ? '' : `?size=${size}`}`, 'text/plain')).text;
const lines = async (svc: TestService, tenant: string) => (await get(svc, `/v1/tenants/${tenant}/audit`)).text.split('\n').filter(Boolean);
const proofOf = async (svc: TestService, q: string) => (JSON.parse((await get(svc, `/v1/tenants/acme/audit/proof?${q}`)).text) as { proof: string[] }).proof;
const cli = async (svc: TestService, ...args: string[]) => {
  try {
    const r = await promisify(execFile)(process.execPath, [path.join(root, 'bin/custodian.js'), ...args], {
      encoding: 'utf8',
      env: { ...process.env, CUSTODIAN_URL: svc.url, CUSTODIAN_ADMIN_KEY: ADMIN_KEY },
      maxBuffer: 64 << 20,
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
};
const activity = async (svc: TestService, tenant: string, n: number) => {
  // Holds placed are audited: each adds an entry.
  for (let i = 0; i < n; i++)
    expect((await svc.admin('POST', `/v1/tenants/${tenant}/holds`, { selector: { data_subject: `user:s${i}` }, reason: `r${i}` })).status).toBeLessThan(300);
  await svc.runner.catchUp();
};
const download = async (svc: TestService, tenant: string, file: string, ...more: string[]) => {
  const out = await cli(svc, 'audit', 'download', '--tenant', tenant, ...more);
  expect(out.code).toBe(0);
  writeFileSync(path.join(dir, file), out.out);
  // The streamed bundle's first line is its head, with the checkpoint.
  return JSON.parse(out.out.split('\n')[0]!) as { checkpoint: { origin: string; size: number; root: string; note: string } };
};

beforeAll(async () => {
  a = await startTestService({ logOrigin: ORIGIN_A });
  // Another deployment holding a copy of the same audit key: only the origin tells their logs apart.
  b = await startTestService({ logOrigin: ORIGIN_B, auditKey: a.auditKey });
  dir = mkdtempSync(path.join(tmpdir(), 'custodian-note-'));
  for (const svc of [a, b]) for (const t of ['acme', 'globex']) expect((await svc.admin('POST', '/v1/tenants', { id: t })).status).toBe(201);
  await activity(a, 'acme', 3);
  await activity(a, 'globex', 1);
  await activity(b, 'acme', 3);
  vkeyA = (await get(a, '/v1/audit-key?format=vkey')).text.trim();
  logKey = parseVkey(vkeyA)!;
  pemFile = path.join(dir, 'audit.pem');
  writeFileSync(pemFile, (await get(a, '/v1/audit-key')).text);
}, 180_000);
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('checkpoints as C2SP signed notes', () => {
  it('serves the note for Accept: text/plain and the vkey, and the JSON form carries the same signature', async () => {
    expect(vkeyA).toMatch(/^audit\.a\.example\/custodian\+[0-9a-f]{8}\+A[Q-f][A-Za-z0-9+/]{42}$/);
    expect(logKey).not.toBeNull();
    const served = await get(a, '/v1/tenants/acme/audit/checkpoint', 'text/plain');
    expect(served.type).toContain('text/plain');
    const json = JSON.parse((await get(a, '/v1/tenants/acme/audit/checkpoint')).text) as {
      origin: string;
      size: number;
      root: string;
      signature: string;
      note: string;
    };
    expect(json.origin).toBe(`${ORIGIN_A}/acme`);
    expect(served.text).toBe(json.note);
    const text = checkpointText(json.origin, json.size, json.root);
    expect(served.text).toBe(formatNote(text, [signatureLine(logKey.name, logKey.id, Buffer.from(json.signature, 'base64'))]));
    expect((await get(a, `/v1/tenants/acme/audit/checkpoint?size=${json.size + 1}`)).status).toBe(400);
    expect((await get(a, '/v1/tenants/acme/audit/checkpoint?size=1e0')).status).toBe(400);
  });

  it("opens with Go's sumdb/note and checks inclusion and consistency with sumdb/tlog", async (ctx) => {
    const bin = goVerifier();
    // Said in one line and skipped on a machine without Go; under CI, where Go is installed, a missing one fails.
    if (!bin && process.env.CI === 'true') throw new Error('go is not installed: CI must run the Go checksum database verifier');
    if (!bin) return ctx.skip('go is not installed: the Go checksum database verifier cannot run');
    const before = await noteOf(a, 'acme');
    const oldSize = Number(before.split('\n')[1]);
    await activity(a, 'acme', 2);
    const note = await noteOf(a, 'acme');
    const size = Number(note.split('\n')[1]);
    const all = await lines(a, 'acme');
    const entries = [];
    for (const index of [0, oldSize - 1, oldSize, size - 1]) entries.push({ index, line: all[index], proof: await proofOf(a, `leaf=${index}&size=${size}`) });
    const input = { vkey: vkeyA, note, entries, previous: { note: before, proof: await proofOf(a, `from=${oldSize}&to=${size}`) } };
    const ok = await runGoVerifier(bin, input);
    expect(ok).toEqual({ code: 0, out: expect.stringContaining(`ok consistency ${oldSize} ${size}`) });
    expect(ok.out).toContain(`ok note ${ORIGIN_A}/acme ${size}`);
    expect(ok.out.match(/^ok inclusion/gm)).toHaveLength(4);
    // The same tool refuses what is not so: an altered entry, a note under another log's key.
    const altered = await runGoVerifier(bin, { ...input, entries: [{ ...entries[0]!, line: entries[0]!.line!.replace('"seq":0', '"seq":1') }] });
    expect(altered).toEqual({ code: 1, out: expect.stringContaining('FAIL inclusion of entry 0') });
    const otherLog = await runGoVerifier(bin, { ...input, vkey: (await get(b, '/v1/audit-key?format=vkey')).text.trim() });
    expect(otherLog).toEqual({ code: 1, out: expect.stringContaining('FAIL note.Open') });
  });
});

describe('audit verify checks which log a bundle is', () => {
  it('verifies the log the auditor names and says which it is', async () => {
    await download(a, 'acme', 'a-acme.json');
    const ok = await cli(a, 'audit', 'verify', path.join(dir, 'a-acme.json'), '--vkey', vkeyA, '--tenant', 'acme');
    expect(ok).toMatchObject({ code: 0, out: expect.stringContaining(`audit log ${ORIGIN_A}/acme verified`) });
    const byPem = await cli(a, 'audit', 'verify', path.join(dir, 'a-acme.json'), '--public-key', pemFile, '--origin', `${ORIGIN_A}/acme`);
    expect(byPem.code).toBe(0);
    const unnamed = await cli(a, 'audit', 'verify', path.join(dir, 'a-acme.json'), '--public-key', pemFile);
    expect(unnamed).toMatchObject({ code: 2, err: expect.stringContaining('--tenant <t> or --origin <origin>') });
  });

  it("refuses another tenant's bundle signed by the same key", async () => {
    await download(a, 'globex', 'a-globex.json');
    for (const key of [
      ['--vkey', vkeyA],
      ['--public-key', pemFile],
    ]) {
      const refused = await cli(a, 'audit', 'verify', path.join(dir, 'a-globex.json'), ...key, '--tenant', 'acme');
      expect(refused).toMatchObject({ code: 1, out: expect.stringContaining(`the checkpoint is of the log ${ORIGIN_A}/globex`) });
    }
  });

  it("refuses another deployment's bundle of a tenant of the same name, under a copy of the same key", async () => {
    await download(b, 'acme', 'b-acme.json');
    const byVkey = await cli(a, 'audit', 'verify', path.join(dir, 'b-acme.json'), '--vkey', vkeyA, '--tenant', 'acme');
    expect(byVkey).toMatchObject({ code: 1, out: expect.stringContaining(`the checkpoint is of the log ${ORIGIN_B}/acme, not of ${ORIGIN_A}/acme`) });
    const byOrigin = await cli(a, 'audit', 'verify', path.join(dir, 'b-acme.json'), '--public-key', pemFile, '--origin', `${ORIGIN_A}/acme`);
    expect(byOrigin).toMatchObject({ code: 1, out: expect.stringContaining(`not of ${ORIGIN_A}/acme`) });
  });
});

describe('witness cosignatures', () => {
  it('keeps cosignatures a configured witness made, serves them with the note, and audit verify --witness requires them', async () => {
    witness = startWitness('witness.test/w1', { [`${ORIGIN_A}/acme`]: logKey });
    // The deployment is told of its witness (CUSTODIAN_WITNESSES): a second instance on a's database.
    const w = await startTestService({ shareWith: a, logOrigin: ORIGIN_A, witnesses: [witness.key] });
    try {
      const note = await noteOf(w, 'acme');
      const size = Number(note.split('\n')[1]);
      const cosigned = witness.addCheckpoint(addCheckpointBody(0, [], note));
      expect(cosigned.status).toBe(200);
      const posted = await fetch(`${w.url}/v1/tenants/acme/audit/checkpoint`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'text/plain' },
        body: note + cosigned.body,
      });
      expect(posted.status).toBe(200);
      expect(await posted.text()).toBe(note + cosigned.body);
      await activity(w, 'acme', 1);
      // The newest checkpoint has no cosignature yet; the cosigned one is served with it.
      expect(await noteOf(w, 'acme')).not.toContain(witness.key.name);
      expect(await noteOf(w, 'acme', size)).toBe(note + cosigned.body);

      await download(w, 'acme', 'cosigned.json', '--size', String(size));
      const required = await cli(w, 'audit', 'verify', path.join(dir, 'cosigned.json'), '--vkey', vkeyA, '--tenant', 'acme', '--witness', witness.vkey);
      expect(required).toMatchObject({ code: 0, out: expect.stringContaining(`cosigned by ${witness.key.name}`) });
      await download(w, 'acme', 'newest.json');
      const missing = await cli(w, 'audit', 'verify', path.join(dir, 'newest.json'), '--vkey', vkeyA, '--tenant', 'acme', '--witness', witness.vkey);
      expect(missing).toMatchObject({ code: 1, out: expect.stringContaining(`witness ${witness.key.name} did not cosign this checkpoint`) });

      // What is kept is checked first: an unknown witness, a forged cosignature, a tree this log never had.
      const other = startWitness('witness.test/unknown', { [`${ORIGIN_A}/acme`]: logKey });
      const before = await w.lastPosition();
      for (const [body, reason] of [
        [note + other.addCheckpoint(addCheckpointBody(0, [], note)).body, 'not of a configured witness'],
        [note + cosigned.body.replace(/(w1 .{20})(.)/, (_m, head: string, c: string) => `${head}${c === 'A' ? 'B' : 'A'}`), 'does not verify'],
        [note.replace(/\n[A-Za-z0-9+/]{43}=\n/, `\n${Buffer.alloc(32, 7).toString('base64')}\n`) + cosigned.body, 'never signed a tree'],
        ['not a note', 'send a C2SP signed note'],
      ] as const) {
        const r = await fetch(`${w.url}/v1/tenants/acme/audit/checkpoint`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'text/plain' },
          body,
        });
        expect([r.status, await r.text()]).toEqual([400, expect.stringContaining(reason)]);
      }
      expect(await w.lastPosition()).toBe(before);
    } finally {
      await w.stop();
    }
  });

  it('a split view — a checkpoint the log signed over a rewritten history — is refused by the witness and flagged by audit verify --witness', async () => {
    // The log's operator rewrites entry 0 and signs the rewritten tree with the log's own key.
    const all = await lines(a, 'acme');
    const forgedLines = [all[0]!.replace('"kind":"', '"kind":"x'), ...all.slice(1)];
    const leaves = forgedLines.map((l) => leafHash(Buffer.from(l)));
    const forgedRoot = rootOf(leaves).toString('base64');
    const text = checkpointText(`${ORIGIN_A}/acme`, leaves.length, forgedRoot);
    const signature = sign(null, Buffer.from(text), a.auditKey);
    const forgedNote = formatNote(text, [signatureLine(logKey.name, logKey.id, signature)]);
    const src: NodeSource = {
      node: async (level, index) => rootOf(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)),
    };
    const proofs = await Promise.all(leaves.map(async (_, i) => (await inclusionProof(src, i, 0, leaves.length)).map((p) => p.toString('base64'))));

    // The witness last cosigned the real tree: no consistency proof leads from it to this one.
    const seen = witness.latest(`${ORIGIN_A}/acme`);
    expect(seen).toBeGreaterThan(0);
    const best = await proofOf(a, `from=${seen}&to=${leaves.length}`);
    expect(witness.addCheckpoint(addCheckpointBody(seen, best, forgedNote)).status).toBe(422);

    // Without the witness the forged bundle reads as a sound log; with it, it is flagged.
    const bundle = {
      checkpoint: { origin: `${ORIGIN_A}/acme`, size: leaves.length, root: forgedRoot, signature: signature.toString('base64'), note: forgedNote },
      entries: forgedLines,
      proofs,
    };
    writeFileSync(path.join(dir, 'split.json'), JSON.stringify(bundle));
    const alone = await cli(a, 'audit', 'verify', path.join(dir, 'split.json'), '--vkey', vkeyA, '--tenant', 'acme');
    expect(alone.code).toBe(0);
    const flagged = await cli(a, 'audit', 'verify', path.join(dir, 'split.json'), '--vkey', vkeyA, '--tenant', 'acme', '--witness', witness.vkey);
    expect(flagged).toMatchObject({ code: 1, out: expect.stringContaining('refused it as inconsistent with the history it saw') });
  });
});
