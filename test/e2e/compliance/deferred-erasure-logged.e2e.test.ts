import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyReceipt } from '../../../adapters/keys/audit-key.ts';
import { leafHash, verifyInclusion } from '../../../domain/audit/merkle.ts';
import { verifyReceiptLog } from '../../../domain/audit/receipt-proof.ts';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

vi.setConfig({ testTimeout: 120_000 });

let svc: TestService;
let pem: string;
let dir: string;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** `custodian receipt verify`, offline, with the audit public key alone. */
const verifyOffline = (receipt: unknown) => {
  const file = path.join(dir, 'receipt.json');
  writeFileSync(file, JSON.stringify(receipt));
  writeFileSync(path.join(dir, 'audit.pem'), pem);
  return new Promise<{ code: number; out: string }>((resolve) =>
    execFile(
      process.execPath,
      [path.join(root, 'bin/custodian.js'), 'receipt', 'verify', file, '--public-key', path.join(dir, 'audit.pem')],
      { encoding: 'utf8' },
      (error, out) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out }),
    ),
  );
};
const T = 'deferral';

const auditLines = async (q: string) => {
  await svc.runner.catchUp();
  const res = await fetch(`${svc.url}/v1/tenants/${T}/audit?${q}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

/** The receipt's entry checked against the log's own signed checkpoint now (a later, bigger tree): the leaf the receipt names is in it. */
const inLogNow = async (log: { index: number; entry: string }) => {
  const cp = (await svc.admin('GET', `/v1/tenants/${T}/audit/checkpoint`)).body as { size: number; root: string };
  const proof = (await svc.admin('GET', `/v1/tenants/${T}/audit/proof?leaf=${log.index}&size=${cp.size}`)).body as { proof: string[] };
  return verifyInclusion(
    log.index,
    cp.size,
    leafHash(Buffer.from(log.entry)),
    proof.proof.map((p) => Buffer.from(p, 'base64')),
    Buffer.from(cp.root, 'base64'),
  );
};

beforeAll(async () => {
  svc = await startTestService();
  dir = mkdtempSync(path.join(tmpdir(), 'custodian-deferred-'));
  pem = await (await fetch(`${svc.url}/v1/audit-key`)).text();
  expect(
    (
      await svc.admin('POST', '/v1/tenants', {
        id: T,
        settings: { person_memory: [{ agent: 'scribe', purpose: 'routine:crm' }], person_shared_scopes: ['project:crm'] },
      })
    ).status,
  ).toBe(201);
  expect((await svc.admin('POST', `/v1/tenants/${T}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  const ada = await caller(svc, T, { purpose: 'routine:crm', data_subject: 'user:ada' });
  for (let i = 0; i < 3; i++) expect((await ada.rec({ op: 'put', scope: 'project:crm', record_key: `ada-${i}`, body: { n: i }, expect: 0 })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a deferred erasure is logged with its receipt when it is deferred, and again when it completes', () => {
  it('the deferred receipt carries its entry, a signed checkpoint and the inclusion proof; the stream shows erasure_deferred, then erasure once the hold is released', async () => {
    const hold = await svc.admin('POST', `/v1/tenants/${T}/holds`, { selector: { data_subject: 'user:ada', record: 'ada-1' }, reason: 'litigation' });
    expect(hold.status).toBe(201);

    const deferred = await svc.admin('POST', `/v1/tenants/${T}/erasures`, { data_subject: 'user:ada' });
    expect(deferred.status).toBe(200);
    const receipt = deferred.body.receipt;
    expect(deferred.body).toMatchObject({ erased: 2, deferred: 1 });
    expect(receipt).toMatchObject({ kind: 'erasure', complete: false, deferred: 1, erased: 2 });
    expect(verifyReceipt(pem, receipt)).toEqual({ ok: true });
    expect(receipt.log).toMatchObject({ index: expect.any(Number), entry: expect.any(String), checkpoint: expect.any(String), proof: expect.any(Array) });
    expect(verifyReceiptLog(pem, receipt)).toMatchObject({ ok: true, index: receipt.log.index });
    expect(JSON.parse(receipt.log.entry)).toMatchObject({
      seq: receipt.log.index,
      kind: 'erasure_deferred',
      subject: 'user:ada',
      records_erased: 2,
      deferred: 1,
    });
    expect(await verifyOffline(receipt)).toEqual({ code: 0, out: expect.stringContaining(`it is entry ${receipt.log.index} of the audit log`) });
    // The log's key signed the checkpoint; one with another signature is not taken.
    const resigned = receipt.log.checkpoint.replace(/ [A-Za-z0-9+/]+=*\n$/, ` ${Buffer.alloc(68, 1).toString('base64')}\n`);
    expect(verifyReceiptLog(pem, { ...receipt, log: { ...receipt.log, checkpoint: resigned } })).toMatchObject({ ok: false });

    const deferrals = await auditLines('kind=erasure_deferred');
    expect(deferrals).toEqual([
      expect.objectContaining({
        seq: receipt.log.index,
        kind: 'erasure_deferred',
        subject: 'user:ada',
        receipt: expect.objectContaining({ signature: receipt.signature }),
      }),
    ]);
    expect(await auditLines('kind=erasure')).toEqual([]);

    const released = await svc.admin('DELETE', `/v1/tenants/${T}/holds/${hold.body.hold.id}`);
    expect(released.status).toBe(200);
    expect(released.body.resumed).toEqual([expect.objectContaining({ data_subject: 'user:ada', erased: 1, deferred: 0 })]);
    const completed = released.body.resumed[0].receipt;
    expect(completed).toMatchObject({ kind: 'erasure', complete: true });
    expect(verifyReceiptLog(pem, completed)).toMatchObject({ ok: true, index: completed.log.index });
    expect(completed.log.index).toBeGreaterThan(receipt.log.index);
    expect(JSON.parse(completed.log.entry)).toMatchObject({ kind: 'erasure', subject: 'user:ada' });

    // Both entries stay in the log as it grows: the deferred one is proven in today's tree too.
    expect(await inLogNow(receipt.log)).toBe(true);
    expect(await auditLines('kind=erasure')).toEqual([expect.objectContaining({ seq: completed.log.index, subject: 'user:ada' })]);
    expect((await auditLines('subject=user:ada')).map((e) => e.kind)).toEqual(expect.arrayContaining(['erasure_requested', 'erasure_deferred', 'erasure']));
  });
});
