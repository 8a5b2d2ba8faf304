import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, ADMIN_KEY, type TestService } from '../../support/service.ts';

let svc: TestService;
const DAY = 24 * 3600 * 1000;

const advance = (days: number) => svc.admin('POST', '/v1/_clock', { advance_ms: days * DAY });
const put = async (c: Caller, bytes: Uint8Array) => {
  const res = await fetch(`${svc.url}/v1/files`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${c.ticket}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { ref: string }).ref;
};
const status = async (c: Caller, ref: string) => (await fetch(`${svc.url}/v1/files/${ref}`, { headers: { authorization: `Bearer ${c.ticket}` } })).status;
const retention = async () => {
  const r = await svc.admin('POST', '/v1/tenants/acme/retention/run');
  expect(r.status).toBe(200);
  return r.body;
};
const chunks = async (ref: string) =>
  Number((await svc.pool.query<{ n: string }>('SELECT count(*) AS n FROM custodian_blob_chunks WHERE sha256 = $1', [ref.slice(-64)])).rows[0]!.n);
const removedEvents = async () =>
  (
    await svc.pool.query<{ data: { sha256: string; reason: string } }>("SELECT data FROM custodian_events WHERE type = 'FileRemoved' ORDER BY position")
  ).rows.map((r) => r.data);
const bytes = (n: number) => randomBytes(n);
const fileKeys = async (tree: string, b: Uint8Array) =>
  Number(
    (
      await svc.pool.query<{ n: string }>("SELECT count(*) AS n FROM custodian_data_keys WHERE plugin = '~files' AND scope = $1 AND record_key = $2", [
        `tree:${tree}`,
        shaOf(b),
      ])
    ).rows[0]!.n,
  );
const shaOf = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** SPEC §13: a file is kept 90 days after its tree last stored it; holds, retention and erasure reach it. */
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => svc?.stop());

describe('the 90-day keep and retention of files', () => {
  it('a file is removed 90 days after its tree last stored it; a file stored again since stays', async () => {
    const old = await caller(svc, 'acme', { input: 'old' });
    const renewed = await caller(svc, 'acme', { input: 'renewed' });
    const oldBytes = bytes(1 << 20);
    const oldRef = await put(old, oldBytes);
    const renewedBytes = bytes(4096);
    const renewedRef = await put(renewed, renewedBytes);
    await advance(80);
    expect(await retention()).toEqual({ person_deleted: 0, removed: 0, renewals_requested: 0, deferred: 0, files: { removed: 0, deferred: 0 } });
    const again = await caller(svc, 'acme', { job: renewed.job, input: 'renewed' });
    expect(await put(again, renewedBytes)).toBe(renewedRef);
    await advance(11);
    expect(await fileKeys(old.job, oldBytes)).toBe(1);

    expect(await retention()).toMatchObject({ files: { removed: 1, deferred: 0 } });
    expect(await status(old, oldRef)).toBe(404);
    expect(await chunks(oldRef)).toBe(0);
    expect(await status(again, renewedRef)).toBe(200);
    expect(await removedEvents()).toEqual([expect.objectContaining({ sha256: shaOf(oldBytes), reason: 'retention', tree: old.job })]);
    // The file's key is shredded: no keystore row names it any more.
    expect(await fileKeys(old.job, oldBytes)).toBe(0);
    // Audited, with the digest, never the bytes (once the audit log, a projection, has it).
    await svc.runner.catchUp();
    const audit = await (await fetch(`${svc.url}/v1/tenants/acme/audit?kind=file_removed`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).text();
    expect(JSON.parse(audit.trim())).toMatchObject({ kind: 'file_removed', tree: old.job, file: oldRef, reason: 'retention' });
  });

  it('a hold on the job tree keeps its files past 90 days; releasing it lets the next run remove them', async () => {
    const kept = await caller(svc, 'acme', { input: 'kept' });
    const ref = await put(kept, bytes(2048));
    const hold = await svc.admin('POST', '/v1/tenants/acme/holds', { selector: { job: kept.job }, reason: 'litigation' });
    expect(hold.status).toBe(201);
    await advance(120);
    expect(await retention()).toMatchObject({ files: { removed: 1, deferred: 1 } }); // the renewed file of the first test goes now
    expect(await status(kept, ref)).toBe(200);
    expect((await svc.admin('DELETE', `/v1/tenants/acme/holds/${hold.body.hold.id}`)).status).toBe(200);
    expect(await retention()).toMatchObject({ files: { removed: 1, deferred: 0 } });
    expect(await status(kept, ref)).toBe(404);
  });
});

describe('erasure of files', () => {
  it("erasing the storing subject removes their files' chunks; a hold on the subject defers it until released", async () => {
    const ada = await caller(svc, 'acme', { input: 'ada', data_subject: 'user:ada' });
    const adaBytes = bytes(1 << 20);
    const ref = await put(ada, adaBytes);
    const bob = await caller(svc, 'acme', { input: 'bob', data_subject: 'user:bob' });
    const bobRef = await put(bob, bytes(1024));

    const hold = await svc.admin('POST', '/v1/tenants/acme/holds', { selector: { data_subject: 'user:ada' }, reason: 'audit' });
    const deferred = await svc.admin('POST', '/v1/tenants/acme/erasures', { data_subject: 'user:ada' });
    expect(deferred.status).toBe(200);
    expect(deferred.body).toMatchObject({ deferred: 1, receipt: { complete: false, files_erased: 0 } });
    expect(await status(ada, ref)).toBe(200);

    const released = await svc.admin('DELETE', `/v1/tenants/acme/holds/${hold.body.hold.id}`);
    expect(released.status).toBe(200);
    expect(released.body.resumed).toEqual([expect.objectContaining({ data_subject: 'user:ada', deferred: 0 })]);
    expect(released.body.resumed[0].receipt).toMatchObject({ complete: true, files_erased: 1 });
    expect(await status(ada, ref)).toBe(404);
    expect(await chunks(ref)).toBe(0);
    expect((await removedEvents()).filter((e) => e.reason === 'erasure')).toEqual([expect.objectContaining({ sha256: shaOf(adaBytes) })]);
    // Another subject's file is untouched.
    expect(await status(bob, bobRef)).toBe(200);
  });
});
