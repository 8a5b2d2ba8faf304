import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, ADMIN_KEY, type TestService } from '../../support/service.ts';

let svc: TestService;
let storer: Caller;

const put = async (ticket: string, bytes: Uint8Array) => {
  const res = await fetch(`${svc.url}/v1/files`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  return { status: res.status, body: (await res.json()) as any };
};
const get = async (ticket: string, ref: string) => {
  const res = await fetch(`${svc.url}/v1/files/${ref}`, { headers: { authorization: `Bearer ${ticket}` } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
};
const audit = async () => {
  await svc.runner.catchUp(); // the audit log is a projection: it has every entry the log holds
  return (await (await fetch(`${svc.url}/v1/tenants/acme/audit?kind=files_handed`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).text())
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
};

const bytes = randomBytes(3 << 20);
const ref = `oz0-file:sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** SPEC §13 "Handing": an admin start may pass files another tree stored; audited as files_handed. */
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme', settings: { label_walls: [['red', 'blue']] } });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  storer = await caller(svc, 'acme', { input: 'archive', labels: ['red'] });
  expect((await put(storer.ticket, bytes)).status).toBe(200);
});
afterAll(async () => svc?.stop());

describe('handing files by an admin start', () => {
  it("another tree cannot read the file until a start hands it; then the new tree reads it whole and joins the file's labels", async () => {
    const stranger = await caller(svc, 'acme', { input: 'stranger' });
    expect((await get(stranger.ticket, ref)).status).toBe(404);

    const fixer = await caller(svc, 'acme', { input: 'fixer', start: { files: [ref] } });
    const read = await get(fixer.ticket, ref);
    expect(read.status).toBe(200);
    expect(read.bytes.equals(bytes)).toBe(true);
    // The file kept the storer's label, so its new reader joined it.
    expect((await svc.admin('GET', `/v1/tenants/acme/jobs/${fixer.job}`)).body.job.labels).toEqual(['red']);
    // A job the fixer starts is of its tree: it reads it too; the stranger still does not.
    const child = await caller(svc, 'acme', { input: 'fixer', start: { parent: fixer.job } });
    expect((await get(child.ticket, ref)).status).toBe(200);
    expect((await get(stranger.ticket, ref)).status).toBe(404);

    const entries = await audit();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ kind: 'files_handed', job: fixer.job, tree: fixer.job, files: [{ ref, size: bytes.length, from_tree: storer.job }] });
    const events = await svc.pool.query<{ data: { files: unknown[] } }>("SELECT data FROM custodian_events WHERE type = 'FilesHanded'");
    expect(events.rows).toHaveLength(1);
    expect(JSON.stringify(events.rows[0]!.data).length).toBeLessThan(1000);
  });

  it('a start naming a file no tree holds is 404 and a malformed ref 400; neither starts the job', async () => {
    const before = await svc.lastPosition();
    const missing = await svc.admin('POST', '/v1/tenants/acme/jobs', {
      id: 'never-started',
      agent: 'scribe',
      plugin: 'notes',
      subject: 's',
      input: 'x',
      files: [`oz0-file:sha256:${'1'.repeat(64)}`],
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'not_found', what: 'file' });
    const malformed = await svc.admin('POST', '/v1/tenants/acme/jobs', {
      id: 'never-started',
      agent: 'scribe',
      plugin: 'notes',
      subject: 's',
      input: 'x',
      files: ['archive.tar'],
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: 'invalid', field: 'files.0' });
    expect(await svc.lastPosition()).toBe(before);
    expect((await svc.admin('GET', '/v1/tenants/acme/jobs/never-started')).status).toBe(404);
  });

  it('a start that follows a running job started without files is another start: refused, and it hands nothing', async () => {
    const other = await caller(svc, 'acme', { input: 'other' });
    const again = await svc.admin('POST', '/v1/tenants/acme/jobs', {
      id: other.job,
      agent: 'scribe',
      plugin: 'notes',
      subject: 's',
      input: 'other',
      files: [ref],
    });
    expect(again).toMatchObject({ status: 409, body: { error: 'already_exists' } });
    expect((await get(other.ticket, ref)).status).toBe(404);
    expect(await audit()).toHaveLength(1);
  });
});
