import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { scanDataDirectory } from '../../support/scan.ts';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let root: Caller;

const put = async (ticket: string, bytes: Uint8Array, type = 'application/octet-stream') => {
  const res = await fetch(`${svc.url}/v1/files`, { method: 'PUT', headers: { authorization: `Bearer ${ticket}`, 'content-type': type }, body: bytes });
  return { status: res.status, body: (await res.json()) as any };
};
const get = async (ticket: string, ref: string) => {
  const res = await fetch(`${svc.url}/v1/files/${encodeURIComponent(ref)}`, { headers: { authorization: `Bearer ${ticket}` } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
};

/** SPEC §13 "Files between tools": content-addressed, sealed, readable only by the storing job tree. */
beforeAll(async () => {
  svc = await startTestService();
  for (const t of ['acme', 'other']) {
    await svc.admin('POST', '/v1/tenants', { id: t });
    await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] });
  }
  root = await caller(svc, 'acme', { input: 'files' });
});
afterAll(async () => svc?.stop());

describe('files between tools', () => {
  const big = randomBytes(20 << 20);
  const sha = createHash('sha256').update(big).digest('hex');
  const ref = `oz0-file:sha256:${sha}`;

  it('stores a 20 MiB file and reads it back byte-identical, in chunks', async () => {
    const stored = await put(root.ticket, big);
    expect(stored).toEqual({ status: 200, body: { ref, size: big.length } });
    const read = await get(root.ticket, ref);
    expect(read.status).toBe(200);
    expect(read.bytes.length).toBe(big.length);
    expect(read.bytes.equals(big)).toBe(true);
    // Sealed and chunked: no stored chunk is over 1 MiB (+ nonce and tag), none holds plaintext.
    const { rows } = await svc.pool.query<{ n: string; biggest: number }>(
      'SELECT count(*) AS n, max(octet_length(bytes)) AS biggest FROM custodian_blob_chunks WHERE sha256 = $1',
      [sha],
    );
    expect(Number(rows[0]!.n)).toBe(20);
    expect(rows[0]!.biggest).toBeLessThanOrEqual((1 << 20) + 28);
    const first = await svc.pool.query<{ bytes: Buffer }>('SELECT bytes FROM custodian_blob_chunks WHERE sha256 = $1 AND idx = 0', [sha]);
    expect(first.rows[0]!.bytes.includes(big.subarray(0, 64))).toBe(false);
    // The event names the file, never its bytes.
    const events = await svc.pool.query<{ type: string; data: unknown }>("SELECT type, data FROM custodian_events WHERE type = 'FileStored'");
    expect(events.rows).toHaveLength(1);
    expect(JSON.stringify(events.rows[0]!.data).length).toBeLessThan(1000);
  });

  it('a job the root started reads it; another call of the root job too', async () => {
    const child = await caller(svc, 'acme', { input: 'files', start: { parent: root.job } });
    expect((await get(child.ticket, ref)).bytes.equals(big)).toBe(true);
    const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${root.job}/calls`, { function: 'save' });
    expect(minted.status).toBe(201);
    expect((await get(minted.body._meta['oz0/records'].ticket, ref)).status).toBe(200);
  });

  it('another tree and another tenant get the same 404 as for a file never stored', async () => {
    const never = `oz0-file:sha256:${'0'.repeat(64)}`;
    const neverRes = await fetch(`${svc.url}/v1/files/${never}`, { headers: { authorization: `Bearer ${root.ticket}` } });
    expect(neverRes.status).toBe(404);
    const neverBody = await neverRes.text();
    expect(JSON.parse(neverBody)).toEqual({ error: 'not_found', message: expect.any(String) });

    const otherTree = await caller(svc, 'acme', { input: 'files' });
    const otherTenant = await caller(svc, 'other', { input: 'files' });
    for (const c of [otherTree, otherTenant]) {
      const res = await fetch(`${svc.url}/v1/files/${ref}`, { headers: { authorization: `Bearer ${c.ticket}` } });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(neverBody);
    }
  });

  it('refuses a bad ticket before reading the upload, a file over 32 MiB, and a body that is not bytes', async () => {
    expect((await put('not-a-ticket', Buffer.from('x'))).status).toBe(401);
    expect((await get('not-a-ticket', ref)).status).toBe(401);
    const tooBig = await put(root.ticket, Buffer.alloc((32 << 20) + 1));
    expect(tooBig.status).toBe(413);
    expect((await put(root.ticket, Buffer.from('{}'), 'application/json')).status).toBe(415);
  });

  it('after erasure of the storing data subject the file is unreadable, and the data directory holds none of its bytes', async (ctx) => {
    const mark = `file-of-ada-${Date.now()}-${randomBytes(8).toString('hex')}`;
    const ada = await caller(svc, 'acme', { input: 'files', data_subject: 'user:ada' });
    const stored = await put(ada.ticket, Buffer.from(mark.repeat(100)));
    expect(stored.status).toBe(200);
    expect((await get(ada.ticket, stored.body.ref)).bytes.toString()).toBe(mark.repeat(100));
    expect((await svc.admin('POST', '/v1/tenants/acme/erasures', { data_subject: 'user:ada' })).status).toBe(200);
    // A ticket of the same tree, minted after the erasure (the job still runs): the key is gone.
    const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${ada.job}/calls`, { function: 'save' });
    expect(minted.status).toBe(201);
    const ticket = minted.body._meta['oz0/records'].ticket;
    const after = await fetch(`${svc.url}/v1/files/${stored.body.ref}`, { headers: { authorization: `Bearer ${ticket}` } });
    expect(after.status).toBe(404);
    expect(
      await svc.pool
        .query("SELECT count(*)::int AS n FROM custodian_data_keys WHERE plugin = '~files' AND owner = 'subject:user:ada'")
        .then((r) => r.rows[0].n),
    ).toBe(0);
    await svc.pool.query('CHECKPOINT');
    const dir = inject('databaseDataDir');
    if (!dir) return ctx.skip(true, 'the data directory of this server is not reachable: the at-rest scan did not run');
    const scanned = scanDataDirectory(dir, (bytes, file) => expect(bytes.includes(mark), file).toBe(false));
    expect(scanned).toBeGreaterThan(1024 * 1024);
  });

  it('a start under the id of an ended job whose tree still holds files is refused; a running one follows as before', async () => {
    const start = { id: 'keeper', agent: 'scribe', plugin: 'notes', subject: 's', input: 'files' };
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs', start)).status).toBe(201);
    const minted = await svc.admin('POST', '/v1/tenants/acme/jobs/keeper/calls', { function: 'save' });
    expect((await put(minted.body._meta['oz0/records'].ticket, Buffer.from('kept between tools'))).status).toBe(200);
    // Running: the same start answers the running job, as before.
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs', start)).status).toBe(200);
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs/keeper/end', {})).status).toBe(200);
    const head = await svc.lastPosition();
    expect(await svc.admin('POST', '/v1/tenants/acme/jobs', start)).toMatchObject({ status: 409, body: { error: 'files_held', job: 'keeper' } });
    expect(await svc.lastPosition()).toBe(head);
    // An ended job whose tree stored nothing starts again under its id.
    const plain = { ...start, id: 'plain' };
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs', plain)).status).toBe(201);
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs/plain/end', {})).status).toBe(200);
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs', plain)).status).toBe(201);
  });
});
