import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyReceiptLog } from '../../../domain/audit/receipt-proof.ts';
import { verifyReceipt } from '../../../adapters/keys/audit-key.ts';
import { goVerifier, runGoVerifier } from '../../support/go-verifier.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

// The offline checks run the CLI, a process each: slow on a busy machine, not timed.
vi.setConfig({ testTimeout: 300_000 });

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let svc: TestService;
let dir: string;
let pem: string;
let pemFile: string;

const cli = async (...args: string[]) => {
  try {
    const r = await promisify(execFile)(process.execPath, [path.join(root, 'bin/custodian.js'), ...args], { encoding: 'utf8' });
    return { code: 0, out: r.stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
};
const auditLines = async (q: string) => {
  await svc.runner.catchUp();
  const res = await fetch(`${svc.url}/v1/tenants/acme/audit?${q}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  return (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};
const verifyFile = async (name: string, receipt: unknown) => {
  writeFileSync(path.join(dir, name), JSON.stringify(receipt));
  return cli('receipt', 'verify', path.join(dir, name), '--public-key', pemFile);
};

beforeAll(async () => {
  svc = await startTestService();
  dir = mkdtempSync(path.join(tmpdir(), 'custodian-receipts-'));
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBeLessThan(300);
  pem = await (await fetch(`${svc.url}/v1/audit-key`)).text();
  pemFile = path.join(dir, 'audit.pem');
  writeFileSync(pemFile, pem);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('receipts prove their own logging', () => {
  it('a revocation receipt carries its entry, a signed checkpoint and the inclusion proof, and verifies offline as logged', async () => {
    const batch = { revocations: [{ kind: 'kill_agent', agent: 'notes/scribe' }], request_id: 'kill-1' };
    const revoked = await svc.admin('POST', '/v1/tenants/acme/revocations', batch);
    expect(revoked.status).toBe(200);
    const receipt = revoked.body.receipt;
    expect(receipt.log).toMatchObject({ index: expect.any(Number), entry: expect.any(String), checkpoint: expect.any(String), proof: expect.any(Array) });
    expect(JSON.parse(receipt.log.entry)).toMatchObject({ seq: receipt.log.index, kind: 'revocation_receipt', epoch: revoked.body.epoch });
    expect(verifyReceipt(pem, receipt)).toEqual({ ok: true });
    expect(verifyReceiptLog(pem, receipt)).toMatchObject({ ok: true, index: receipt.log.index });
    const ok = await verifyFile('revocation.json', receipt);
    expect(ok).toEqual({
      code: 0,
      out: expect.stringMatching(new RegExp(`it is entry ${receipt.log.index} of the audit log custodian\\.invalid/[0-9a-f]{16}/acme`)),
    });

    // A retry answers the same receipt, proven again.
    const retried = await svc.admin('POST', '/v1/tenants/acme/revocations', batch);
    expect(retried.body.receipt.signature).toBe(receipt.signature);
    expect(verifyReceiptLog(pem, retried.body.receipt)).toMatchObject({ ok: true, index: receipt.log.index });

    // Each part of the proof is checked: another index, a checkpoint not signed by the key.
    const wrongIndex = await verifyFile('wrong-index.json', { ...receipt, log: { ...receipt.log, index: receipt.log.index - 1 } });
    expect(wrongIndex).toMatchObject({ code: 1, out: expect.stringContaining('not at index') });
    const resigned = receipt.log.checkpoint.replace(/ [A-Za-z0-9+/]+=*\n$/, ` ${Buffer.alloc(68, 1).toString('base64')}\n`);
    const unsigned = await verifyFile('unsigned.json', { ...receipt, log: { ...receipt.log, checkpoint: resigned } });
    expect(unsigned).toMatchObject({ code: 1, out: expect.stringContaining('its checkpoint is not signed by this key') });
    // The signed fields are the signature's: a changed one fails as before.
    expect((await verifyFile('edited.json', { ...receipt, stopped: ['job-x'] })).out).toContain('receipt NOT verified: the signature does not match');
  });

  it('a receipt carries its inclusion as a c2sp.org/tlog-proof text: receipt verify checks it, and transparency-dev/formats reads it', async (ctx) => {
    const revoked = await svc.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'kill_agent', agent: 'notes/other' }] });
    const log = revoked.body.receipt.log;
    expect(log.tlog_proof).toBe(`c2sp.org/tlog-proof@v1\nindex ${log.index}\n${log.proof.map((p: string) => `${p}\n`).join('')}\n${log.checkpoint}`);
    const tampered = log.tlog_proof.replace(`index ${log.index}\n`, `index ${log.index}\n${Buffer.alloc(32, 9).toString('base64')}\n`);
    expect(await verifyFile('tlog-proof-tampered.json', { ...revoked.body.receipt, log: { ...log, tlog_proof: tampered } })).toEqual({
      code: 1,
      out: expect.stringContaining(`its tlog_proof: its entry is not at index ${log.index} of the tree the checkpoint signs`),
    });

    const bin = goVerifier();
    // Said in one line and skipped on a machine without Go; under CI, where Go is installed, a missing one fails.
    if (!bin && process.env.CI === 'true') throw new Error('go is not installed: CI must run the Go verifier');
    if (!bin) return ctx.skip('go is not installed: transparency-dev/formats cannot read the tlog-proof');
    const vkey = (await (await fetch(`${svc.url}/v1/audit-key?format=vkey`)).text()).trim();
    const ok = await runGoVerifier(bin, { vkey, tlog_proofs: [{ line: log.entry, text: log.tlog_proof }] });
    expect(ok).toEqual({ code: 0, out: expect.stringMatching(new RegExp(`^ok tlog-proof \\S+/acme ${log.index} in \\d+\\n$`)) });
    const refused = await runGoVerifier(bin, { vkey, tlog_proofs: [{ line: log.entry, text: tampered }] });
    expect(refused).toEqual({ code: 1, out: expect.stringContaining(`FAIL tlog-proof inclusion of entry ${log.index}`) });
  });

  it('an erasure receipt verifies offline as logged', async () => {
    const erased = await svc.admin('POST', '/v1/tenants/acme/erasures', { data_subject: 'user:zed' });
    expect(erased.status).toBe(200);
    expect(erased.body.receipt).toMatchObject({ kind: 'erasure', complete: true, log: { index: expect.any(Number) } });
    expect(JSON.parse(erased.body.receipt.log.entry)).toMatchObject({ kind: 'erasure', subject: 'user:zed' });
    const ok = await verifyFile('erasure.json', erased.body.receipt);
    expect(ok).toEqual({ code: 0, out: expect.stringContaining(`it is entry ${erased.body.receipt.log.index} of the audit log`) });
  });
});

describe('every act that changes authority or data is audited', () => {
  it('a kill lifted is an audit entry', async () => {
    const lifted = await svc.admin('DELETE', '/v1/tenants/acme/kills/notes/scribe');
    expect(lifted.status).toBe(200);
    expect(await auditLines('kind=kill_lifted')).toEqual([expect.objectContaining({ kind: 'kill_lifted', agent: 'notes/scribe' })]);
  });

  it("an agent's record writes and deletes are audit entries naming ids, never values", async () => {
    const key = ((await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'seller-bot' })).body as { key: string }).key;
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${svc.url}${p}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await call('PUT', '/v1/agent/collections', { collections: { questions: {} } })).status).toBe(200);
    const SECRET = `value-marker-${Date.now()}`;
    expect((await call('PUT', '/v1/agent/records/questions/q1', { value: { text: SECRET } })).status).toBe(200);
    expect((await call('DELETE', '/v1/agent/records/questions/q1')).status).toBe(200);
    const writes = await auditLines('kind=agent_write');
    expect(writes).toEqual([expect.objectContaining({ agent: 'seller-bot', collection: 'questions', id: 'q1' })]);
    expect(await auditLines('kind=agent_delete')).toEqual([expect.objectContaining({ agent: 'seller-bot', collection: 'questions', id: 'q1' })]);
    expect(JSON.stringify(await auditLines(''))).not.toContain(SECRET);
  });
});
