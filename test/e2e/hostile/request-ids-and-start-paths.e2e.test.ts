import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over issue 12 as merged: authority rules an operator relies on that a
 * running service does not keep. Each test states the request that gets through.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

const tenant = async (id: string, settings: Record<string, unknown> = {}) => {
  expect((await svc.admin('POST', '/v1/tenants', { id, settings })).status).toBe(201);
  expect((await svc.admin('POST', `/v1/tenants/${id}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
};
const put = (ticket: string, key: string) => records(svc, ticket, { op: 'put', scope: 'tenant', record_key: key, body: { a: 1 }, expect: 0 });

describe('request_id reuse with a different request (SPEC §6 "retries are idempotent")', () => {
  it('a different revocation batch under a used request_id is not answered with the earlier receipt while nothing is revoked', async () => {
    await tenant('rid-batch');
    expect((await svc.admin('POST', '/v1/tenants/rid-batch/plugins', { name: 'other', functions: ['f'], agents: ['a'] })).status).toBe(201);
    const first = await svc.admin('POST', '/v1/tenants/rid-batch/revocations', { revocations: [{ kind: 'kill_agent', agent: 'other/a' }], request_id: 'r1' });
    expect(first.status).toBe(200);
    const victim = await caller(svc, 'rid-batch');
    // The operator removes plugin notes, reusing (by mistake or by a buggy client) an id.
    const second = await svc.admin('POST', '/v1/tenants/rid-batch/revocations', {
      revocations: [{ kind: 'plugin_removed', plugin: 'notes' }],
      request_id: 'r1',
    });
    // Either refused (409: the id answered another batch) or applied — never a 200 that did nothing.
    if (second.status === 200) {
      expect((await put(victim.ticket, 'after-removal')).status).toBe(403);
    } else {
      expect(second).toMatchObject({ status: 409, body: { error: 'already_exists' } });
    }
  });

  it('an install of another plugin under a used request_id is not answered 201 with the other plugin while nothing is installed', async () => {
    await tenant('rid-install');
    const first = await svc.admin('POST', '/v1/tenants/rid-install/plugins', { name: 'first', functions: ['f'], agents: ['a'], request_id: 'i1' });
    expect(first.status).toBe(201);
    const second = await svc.admin('POST', '/v1/tenants/rid-install/plugins', { name: 'second', functions: ['g'], agents: ['b'], request_id: 'i1' });
    if (second.status === 201) {
      expect(second.body.plugin.name).toBe('second');
      const t = await svc.admin('GET', '/v1/tenants/rid-install');
      expect(t.body.tenant.plugins.map((p: { name: string }) => p.name)).toContain('second');
    } else {
      expect(second).toMatchObject({ status: 409, body: { error: 'already_exists' } });
    }
  });
});

describe('start paths (SPEC §6 "how a person starts jobs", "revocations stick")', () => {
  it('turning start restrictions on stops the running job of a listed person it leaves without a path', async () => {
    await tenant('restrict', { people: { 'user:carl': { roles: ['viewer'], teams: [] } } });
    const carl = await caller(svc, 'restrict', { start: { subject: 'user:carl' } });
    expect((await put(carl.ticket, 'before')).status).toBe(200);
    const patched = await svc.admin('PATCH', '/v1/tenants/restrict', { start_roles: ['starter'] });
    expect(patched.status).toBe(200);
    // carl now has no start path: new starts are refused ...
    const again = await svc.admin('POST', '/v1/tenants/restrict/jobs', { agent: 'scribe', plugin: 'notes', subject: 'user:carl', input: 'x' });
    expect(again).toMatchObject({ status: 403, body: { error: 'revoked' } });
    // ... and the change that closed his last path is a revocation of his running job.
    expect(patched.body.revocation?.stopped ?? []).toContain(carl.job);
    expect((await put(carl.ticket, 'after')).body.error).toBe('revoked');
  });

  it('a revoked person cannot start again by spelling the subject differently', async () => {
    await tenant('spell', { start_roles: ['starter'], people: { 'user:ada': { roles: ['starter'], teams: [] } } });
    await caller(svc, 'spell', { start: { subject: 'user:ada' } });
    const patched = await svc.admin('PATCH', '/v1/tenants/spell', { people: { 'user:ada': { roles: [], teams: [] } } });
    expect(patched.body.revocation).toBeDefined();
    for (const subject of ['User:ada', 'USER:ada', ' user:ada', 'user:ada ']) {
      const r = await svc.admin('POST', '/v1/tenants/spell/jobs', { agent: 'scribe', plugin: 'notes', subject, input: 'x' });
      // Refused as revoked, or refused as a malformed subject: never a running job for ada.
      expect(r.status, subject).toBeGreaterThanOrEqual(400);
    }
  });

  it('a revoked api key cannot start again by spelling the subject differently', async () => {
    await tenant('spell-key');
    const batch = await svc.admin('POST', '/v1/tenants/spell-key/revocations', { revocations: [{ kind: 'api_key_revoked', key: 'K1' }] });
    expect(batch.status).toBe(200);
    expect((await svc.admin('POST', '/v1/tenants/spell-key/jobs', { agent: 'scribe', plugin: 'notes', subject: 'apikey:K1', input: 'x' })).status).toBe(403);
    for (const subject of ['APIKEY:K1', 'ApiKey:K1', 'apikey:K1 ']) {
      const r = await svc.admin('POST', '/v1/tenants/spell-key/jobs', { agent: 'scribe', plugin: 'notes', subject, input: 'x' });
      expect(r.status, subject).toBeGreaterThanOrEqual(400);
    }
  });
});
