import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../../adapters/http/server.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Auditor keys (SPEC §14, issue 17 item 2): a key that reads one tenant's audit stream,
 * checkpoints and proofs, and nothing else — no other route, no other tenant — and that dies
 * at the next request once `api_key_revoked` names it.
 */

let svc: TestService;
let call = '';
let auditor = { key: '', id: '' };

const PARAMS: Record<string, () => string> = {
  t: () => 'acme',
  id: () => 'j1',
  call: () => call,
  hold: () => '00000000-0000-4000-8000-000000000000',
  plugin: () => 'notes',
  agent: () => 'scribe',
  file: () => 'index.html',
};
const concrete = (url: string) => url.replace(/:([A-Za-z_]+)/g, (_m, name: string) => (PARAMS[name] ?? (() => 'x'))());

/** Bodies that would write if they reached their handler, so a leak moves the log. */
const BODIES: Record<string, unknown> = {
  'POST /v1/tenants': { id: 'pwned' },
  'PATCH /v1/tenants/:t': { retention_days: 5 },
  'POST /v1/tenants/:t/plugins': { name: 'evil', functions: ['f'], agents: ['a'] },
  'POST /v1/tenants/:t/revocations': { revocations: [{ kind: 'kill_agent', agent: 'notes/scribe' }] },
  'POST /v1/tenants/:t/jobs': { agent: 'scribe', plugin: 'notes', subject: 's', input: 'pwned' },
  'POST /v1/tenants/:t/jobs/:id/calls': { function: 'save' },
  'POST /v1/tenants/:t/holds': { selector: { tenant: true }, reason: 'pwned' },
  'POST /v1/tenants/:t/erasures': { data_subject: 'user:pwned' },
  'POST /v1/tenants/:t/agent-keys': { agent: 'scribe' },
  'POST /v1/records': { op: 'get', scope: 'tenant', record_key: 'k' },
};

const asAuditor = (path: string, key = auditor.key) => svc.http.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });

beforeAll(async () => {
  svc = await startTestService();
  for (const t of ['acme', 'other']) {
    expect((await svc.admin('POST', '/v1/tenants', { id: t })).status).toBe(201);
    expect((await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  }
  expect((await svc.admin('POST', '/v1/tenants/acme/jobs', { id: 'j1', agent: 'scribe', plugin: 'notes', subject: 's', input: 'x' })).status).toBe(201);
  const minted = await svc.admin('POST', '/v1/tenants/acme/jobs/j1/calls', { function: 'save' });
  expect(minted.status).toBe(201);
  call = minted.body.call.id;
  const issued = await svc.admin('POST', '/v1/tenants/acme/auditor-keys', {});
  expect(issued.status).toBe(201);
  auditor = issued.body;
});
afterAll(async () => svc?.stop());

describe('auditor keys', () => {
  it('are issued by the admin alone, for a tenant that exists, and the log keeps only their digest', async () => {
    expect(auditor.key).toMatch(/^au\.acme\.[0-9a-f]{32}\./);
    expect((await svc.admin('POST', '/v1/tenants/nobody/auditor-keys', {})).status).toBe(404);
    const { rows } = await svc.pool.query<{ n: string }>(`SELECT count(*) AS n FROM custodian_events WHERE data::text LIKE $1`, [
      `%${auditor.key.split('.')[3]}%`,
    ]);
    expect(Number(rows[0]!.n)).toBe(0);
    const issuedEvents = await svc.pool.query<{ n: string }>(`SELECT count(*) AS n FROM custodian_events WHERE type = 'AuditorKeyIssued'`);
    expect(Number(issuedEvents.rows[0]!.n)).toBe(1);
  });

  it("read the tenant's audit stream, checkpoint and proofs", async () => {
    const lines = await asAuditor('/v1/tenants/acme/audit');
    expect(lines.statusCode).toBe(200);
    expect(lines.body.trim().split('\n').length).toBeGreaterThan(0);
    const cp = await asAuditor('/v1/tenants/acme/audit/checkpoint');
    expect(cp.statusCode).toBe(200);
    // This deployment's log name (its verifier key's), then the tenant.
    expect(cp.json().origin).toMatch(/^custodian\.invalid\/[0-9a-f]{16}\/acme$/);
    const proof = await asAuditor(`/v1/tenants/acme/audit/proof?leaf=0&size=${cp.json().size}`);
    expect(proof.statusCode).toBe(200);
    expect(proof.json().leaf_index).toBe(0);
  });

  it('are refused for another tenant, even one that exists', async () => {
    for (const path of ['/v1/tenants/other/audit', '/v1/tenants/other/audit/checkpoint', '/v1/tenants/other/audit/proof?leaf=0&size=1']) {
      const r = await asAuditor(path);
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ error: 'unauthorized' });
    }
    // An auditor key of one tenant written with another's name in it is not a key at all.
    expect((await asAuditor('/v1/tenants/other/audit', auditor.key.replace('au.acme.', 'au.other.'))).statusCode).toBe(401);
  });

  it('are refused by every route that does not declare them, and move nothing', async () => {
    const table: readonly RouteInfo[] = svc.http.routeTable;
    const others = table.filter((r) => r.auth !== 'auditor-key' && r.auth !== 'audit-hashes' && r.auth !== 'public');
    expect(others.length).toBeGreaterThan(20);
    const head = await svc.lastPosition();
    const leaks: string[] = [];
    for (const route of others) {
      const body = BODIES[`${route.method} ${route.url}`] ?? {};
      const withBody = !['GET', 'HEAD', 'DELETE'].includes(route.method);
      const r = await svc.http.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        headers: { authorization: `Bearer ${auditor.key}`, ...(withBody ? { 'content-type': 'application/json' } : {}) },
        ...(withBody ? { payload: JSON.stringify(body) } : {}),
      });
      if (![401, 403].includes(r.statusCode)) leaks.push(`${route.method} ${route.url} (${route.auth}) → ${r.statusCode} ${r.body.slice(0, 120)}`);
    }
    expect(leaks).toEqual([]);
    expect(await svc.lastPosition()).toBe(head);
    // The routes it may call are exactly the audit stream's (with the log's tiles).
    expect(
      table
        .filter((r) => (r.auth === 'auditor-key' || r.auth === 'audit-hashes') && r.method === 'GET')
        .map((r) => r.url)
        .sort(),
    ).toEqual([
      '/v1/tenants/:t/audit',
      '/v1/tenants/:t/audit/checkpoint',
      '/v1/tenants/:t/audit/log/checkpoint',
      '/v1/tenants/:t/audit/log/tile/:l/*',
      '/v1/tenants/:t/audit/log/tile/entries/*',
      '/v1/tenants/:t/audit/proof',
      // What the console reads for an auditor: its pages, the filters' pickers, a page's proofs, agent record ids.
      '/v1/tenants/:t/console/agent-records',
      '/v1/tenants/:t/console/audit-facets',
      '/v1/tenants/:t/console/audit-proofs',
      '/v1/tenants/:t/console/session',
    ]);
  });

  it('die at the next request once api_key_revoked names them, while others live on', async () => {
    const second = await svc.admin('POST', '/v1/tenants/acme/auditor-keys');
    expect(second.status).toBe(201);
    expect((await asAuditor('/v1/tenants/acme/audit/checkpoint', second.body.key)).statusCode).toBe(200);
    const revoked = await svc.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'api_key_revoked', key: second.body.id }] });
    expect(revoked.status).toBe(200);
    const r = await asAuditor('/v1/tenants/acme/audit/checkpoint', second.body.key);
    expect(r.statusCode).toBe(401);
    expect(r.json()).toMatchObject({ error: 'unauthorized' });
    expect((await asAuditor('/v1/tenants/acme/audit/checkpoint')).statusCode).toBe(200);
  });

  it('a wrong secret with a real id is refused', async () => {
    const parts = auditor.key.split('.');
    const wrong = [...parts.slice(0, 3), 'A'.repeat(43)].join('.');
    expect((await asAuditor('/v1/tenants/acme/audit', wrong)).statusCode).toBe(401);
  });
});
