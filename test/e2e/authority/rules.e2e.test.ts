import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt } from '../../../adapters/keys/audit-key.ts';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/** Issue 12: the authority rules of SPEC §6 "Corrections to earlier readings", one test per rule. */
let svc: TestService;
let tenantN = 0;
const HOUR = 60 * 60 * 1000;

const tenant = async (settings: Record<string, unknown> = {}) => {
  const t = `rules${++tenantN}`;
  const created = await svc.admin('POST', '/v1/tenants', { id: t, settings });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe', 'clerk'] });
  await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'mail', functions: ['send'], agents: ['postman'] });
  return t;
};
const start = (t: string, body: Record<string, unknown>) =>
  svc.admin('POST', `/v1/tenants/${t}/jobs`, { agent: 'scribe', plugin: 'notes', subject: 'user:ada', purpose: 'routine:r', ...body });
const revoke = (t: string, revocations: unknown[], extra: Record<string, unknown> = {}) =>
  svc.admin('POST', `/v1/tenants/${t}/revocations`, { revocations, ...extra });
const status = async (t: string, job: string) => (await svc.admin('GET', `/v1/tenants/${t}/jobs/${job}`)).body.job.status;
const epochOf = async (t: string) => (await svc.admin('GET', `/v1/tenants/${t}`)).body.tenant.authority_epoch;

beforeAll(async () => {
  svc = await startTestService({ testClock: true });
});
afterAll(async () => svc?.stop());

describe("a child's labels are the parent's current labels", () => {
  it('a parent that read red starts a child that is walled off blue and writes red', async () => {
    const t = await tenant({ label_walls: [['red', 'blue']] });
    const red = await caller(svc, t, { purpose: 'routine:r', labels: ['red'], start: { subject: 'user:ada' } });
    const blue = await caller(svc, t, { purpose: 'routine:r', labels: ['blue'], start: { subject: 'user:ada' } });
    expect((await red.rec({ op: 'put', scope: 'tenant', record_key: 'r1', body: { c: 'red' }, expect: 0 })).status).toBe(200);
    expect((await blue.rec({ op: 'put', scope: 'tenant', record_key: 'b1', body: { c: 'blue' }, expect: 0 })).status).toBe(200);

    const parent = await caller(svc, t, { purpose: 'routine:r', start: { subject: 'user:ada' } });
    expect((await parent.rec({ op: 'get', scope: 'tenant', record_key: 'r1' })).body.record.labels).toEqual(['red']);
    expect((await svc.admin('GET', `/v1/tenants/${t}/jobs/${parent.job}`)).body.job.labels).toEqual(['red']);

    const child = await caller(svc, t, { agent: 'clerk', purpose: 'routine:r', start: { subject: 'user:ada', parent: parent.job } });
    const job = (await svc.admin('GET', `/v1/tenants/${t}/jobs/${child.job}`)).body.job;
    expect(job.labels).toEqual(['red']);
    const listed = await child.rec({ op: 'list' });
    expect(listed.status).toBe(200);
    expect(listed.body.records.map((r: { key: string }) => r.key)).toEqual(['r1']);
    expect(listed.body.withheld).toBe(1);
    const got = await child.rec({ op: 'get', scope: 'tenant', record_key: 'b1' });
    expect(got.status).toBe(200);
    expect(got.body.record).toBeUndefined();

    expect((await child.rec({ op: 'put', scope: 'tenant', record_key: 'c1', body: { c: 'child' }, expect: 0 })).status).toBe(200);
    expect((await red.rec({ op: 'get', scope: 'tenant', record_key: 'c1' })).body.record.labels).toContain('red');
  });
});

describe('a withdrawn grant is refused at once', () => {
  it('a PATCH that removes a grant is one revocation batch: epoch step, reached job stopped, signed receipt', async () => {
    const t = await tenant({ grants: { mail: ['plugin:notes'] } });
    const mail = await caller(svc, t, { agent: 'postman', plugin: 'mail', fn: 'notes/save', purpose: 'routine:r', start: { subject: 'user:ada' } });
    const own = await caller(svc, t, { agent: 'scribe', purpose: 'routine:r', start: { subject: 'user:ada' } });
    expect((await mail.rec({ op: 'list' })).status).toBe(200);
    const patched = await svc.admin('PATCH', `/v1/tenants/${t}`, { grants: {} });
    expect(patched.status).toBe(200);
    expect(patched.body.tenant.authority_epoch).toBe(2);
    expect(patched.body.revocation).toMatchObject({ epoch: 2, stopped: [mail.job], indeterminate: [] });
    const pem = await (await fetch(`${svc.url}/v1/audit-key`)).text();
    expect(verifyReceipt(pem, patched.body.revocation.receipt)).toEqual({ ok: true });
    expect(patched.body.revocation.receipt.revocations).toEqual([{ kind: 'grant_narrowed', grantee: 'mail', scope: 'plugin:notes' }]);
    expect(await mail.rec({ op: 'list' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect((await own.rec({ op: 'list' })).status).toBe(200);
    expect(await status(t, mail.job)).toBe('stopped');
    // Minting another call for the stopped job is refused too.
    expect((await svc.admin('POST', `/v1/tenants/${t}/jobs/${mail.job}/calls`, { function: 'notes/save' })).status).toBe(403);
  });

  it("a removed start role or a person's last role is a revocation; a change that only adds is plain settings", async () => {
    const t = await tenant({
      start_roles: ['admin', 'dev'],
      people: { 'user:ada': { roles: ['admin'], teams: [] }, 'user:bob': { roles: ['dev'], teams: [] } },
    });
    const ada = await caller(svc, t, { purpose: 'routine:r', start: { subject: 'user:ada' } });
    const bob = await caller(svc, t, { purpose: 'routine:r', start: { subject: 'user:bob' } });
    const added = await svc.admin('PATCH', `/v1/tenants/${t}`, { start_teams: ['ops'], grants: { mail: ['tool:notes/save'] } });
    expect(added.status).toBe(200);
    expect(added.body.revocation).toBeUndefined();
    expect(added.body.tenant.authority_epoch).toBe(1);

    const roleGone = await svc.admin('PATCH', `/v1/tenants/${t}`, { start_roles: ['dev'] });
    expect(roleGone.body.revocation).toMatchObject({ epoch: 2, stopped: [ada.job] });
    expect(roleGone.body.revocation.receipt.revocations).toEqual([{ kind: 'person_revoked', person: 'user:ada' }]);
    expect(await ada.rec({ op: 'list' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect((await bob.rec({ op: 'list' })).status).toBe(200);

    const personGone = await svc.admin('PATCH', `/v1/tenants/${t}`, { people: { 'user:ada': { roles: [], teams: [] } } });
    expect(personGone.body.revocation).toMatchObject({ epoch: 3, stopped: [bob.job] });
    expect(await bob.rec({ op: 'list' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect(await epochOf(t)).toBe(3);
  });
});

describe('revocations stick', () => {
  it('a killed agent starts no new job, not even by retrying the stopped id, until the kill is lifted', async () => {
    const t = await tenant();
    const first = await start(t, { id: 'k1' });
    expect(first.status).toBe(201);
    expect((await revoke(t, [{ kind: 'kill_agent', agent: 'notes/scribe' }])).body.stopped).toEqual(['k1']);
    const head = await svc.lastPosition();
    expect(await start(t, { id: 'k1' })).toMatchObject({ status: 403, body: { error: 'revoked', reason: expect.stringContaining('notes/scribe') } });
    expect(await start(t, { id: 'k2' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect(await svc.lastPosition()).toBe(head);
    expect((await start(t, { id: 'c1', agent: 'clerk' })).status).toBe(201);

    expect((await svc.admin('DELETE', `/v1/tenants/${t}/kills/notes/clerk`)).status).toBe(404);
    const lifted = await svc.admin('DELETE', `/v1/tenants/${t}/kills/notes/scribe`);
    expect(lifted.status).toBe(200);
    expect((await start(t, { id: 'k1' })).status).toBe(201);
    expect(await status(t, 'k1')).toBe('running');
  });

  it('a removed plugin starts nothing until a new install; a revoked api key starts nothing', async () => {
    const t = await tenant();
    await revoke(t, [
      { kind: 'plugin_removed', plugin: 'mail' },
      { kind: 'api_key_revoked', key: 'k-9' },
    ]);
    expect(await start(t, { agent: 'postman', plugin: 'mail' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect(await start(t, { subject: 'apikey:k-9' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect((await start(t, { subject: 'apikey:k-10' })).status).toBe(201);
    expect((await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'mail', functions: ['send'], agents: ['postman'] })).status).toBe(201);
    expect((await start(t, { agent: 'postman', plugin: 'mail' })).status).toBe(201);
  });

  it('a person with no start path starts no job until a settings change gives them one; without start roles or teams anyone starts', async () => {
    const open = await tenant();
    expect((await start(open, { subject: 'user:zed' })).status).toBe(201);

    const t = await tenant({ start_roles: ['admin'], people: { 'user:ada': { roles: ['admin'], teams: [] } } });
    expect((await start(t, { id: 'a1' })).status).toBe(201);
    expect(await start(t, { subject: 'user:zed' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    const r = await revoke(t, [{ kind: 'person_change', person: 'user:ada', remove_roles: ['admin'] }]);
    expect(r.body.stopped).toEqual(['a1']);
    expect(await start(t, { id: 'a1' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect(await start(t, { id: 'a2' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    await svc.admin('PATCH', `/v1/tenants/${t}`, { people: { 'user:ada': { roles: ['admin'], teams: [] } } });
    expect((await start(t, { id: 'a2' })).status).toBe(201);
  });
});

describe('install_gen and idempotent retries', () => {
  it('an upgrade keeps install_gen; a removal then an install takes the next number, never one used before', async () => {
    const t = await tenant();
    const upgrade = await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save', 'find'], agents: ['scribe', 'clerk'] });
    expect(upgrade.body).toMatchObject({ install_gen: 1, plugin: { functions: ['save', 'find'] } });
    await revoke(t, [{ kind: 'plugin_removed', plugin: 'notes' }]);
    const back = await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] });
    expect(back.body.install_gen).toBe(2);
    await revoke(t, [{ kind: 'plugin_removed', plugin: 'notes' }]);
    expect((await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).body.install_gen).toBe(3);
  });

  it('a retried install or revocation batch with the same request_id answers the earlier answer and writes nothing', async () => {
    const t = await tenant();
    const body = { name: 'search', functions: ['find'], agents: ['seeker'], request_id: 'install-1' };
    const first = await svc.admin('POST', `/v1/tenants/${t}/plugins`, body);
    expect(first.status).toBe(201);
    let head = await svc.lastPosition();
    const again = await svc.admin('POST', `/v1/tenants/${t}/plugins`, body);
    expect(again.body).toEqual(first.body);
    expect(await svc.lastPosition()).toBe(head);

    await start(t, { id: 'r1' });
    const batch = await revoke(t, [{ kind: 'kill_agent', agent: 'notes/scribe' }], { request_id: 'batch-1' });
    expect(batch.body).toMatchObject({ epoch: 2, stopped: ['r1'] });
    head = await svc.lastPosition();
    const retried = await revoke(t, [{ kind: 'kill_agent', agent: 'notes/scribe' }], { request_id: 'batch-1' });
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(batch.body);
    expect(await svc.lastPosition()).toBe(head);
    expect(await epochOf(t)).toBe(2);
  });
});

describe('ceilings default to none', () => {
  it('a job started without timeout or depth has no expiry and no depth bound, and is never fenced by a default', async () => {
    const t = await tenant();
    const root = await start(t, { id: 'deep-0' });
    expect(root.body.envelope.blocks[0].block).toMatchObject({ expires_ms: null, max_depth: null });
    const c = await caller(svc, t, { job: 'deep-0', purpose: 'routine:r', start: { subject: 'user:ada' } });
    await svc.admin('POST', '/v1/_clock', { advance_ms: 25 * HOUR });
    expect((await c.rec({ op: 'list' })).status).toBe(200);
    expect((await svc.admin('POST', `/v1/tenants/${t}/jobs/deep-0/calls`, { function: 'save' })).status).toBe(201);
    let parent = 'deep-0';
    for (let depth = 1; depth <= 6; depth++) {
      const child = await start(t, { id: `deep-${depth}`, parent });
      expect(child.status).toBe(201);
      expect(child.body.envelope.blocks.at(-1).block).toMatchObject({ depth, max_depth: null, expires_ms: null });
      parent = `deep-${depth}`;
    }
  });

  it('the tenant max_depth applies when the start sets none; a child of a parent without a ceiling may set one, never widen one to none', async () => {
    const t = await tenant({ max_depth: 1 });
    const root = await start(t, { id: 'm0', timeout_ms: HOUR });
    expect(root.body.envelope.blocks[0].block).toMatchObject({ max_depth: 1, expires_ms: expect.any(Number) });
    expect((await start(t, { id: 'm1', parent: 'm0' })).body.envelope.blocks[1].block).toMatchObject({ max_depth: 1, depth: 1 });
    expect(await start(t, { id: 'm2', parent: 'm1' })).toMatchObject({ status: 403, body: { error: 'widening_refused', field: 'depth' } });

    const u = await tenant();
    await start(u, { id: 'n0' });
    const narrowed = await start(u, { id: 'n1', parent: 'n0', max_depth: 2, timeout_ms: HOUR });
    expect(narrowed.body.envelope.blocks[1].block).toMatchObject({ max_depth: 2, expires_ms: expect.any(Number) });
    const inherits = await start(u, { id: 'n2', parent: 'n1' });
    expect(inherits.body.envelope.blocks[2].block).toMatchObject({ max_depth: 2, expires_ms: narrowed.body.envelope.blocks[1].block.expires_ms });
  });
});
