import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { caller, type Caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

vi.setConfig({ testTimeout: 120_000 });

let svc: TestService;
const T = 'leaving';

const count = async (sql: string, params: unknown[]) => Number((await svc.pool.query<{ n: number }>(sql, params)).rows[0]!.n);
const keysOf = async (tenant: string) =>
  (await count('SELECT count(*)::int AS n FROM custodian_data_keys WHERE tenant = $1', [tenant])) +
  (await count('SELECT count(*)::int AS n FROM custodian_subject_keys WHERE tenant = $1', [tenant]));

/** Every version body the tenant's log holds, opened by a keystore of the master key that has cached nothing (null: its key is gone). */
const openedBodies = async (tenant: string) => {
  const keys = await postgresKeystore(svc.pool, svc.masterKey);
  const { rows } = await svc.pool.query<{ data: any }>(
    `SELECT data FROM custodian_events WHERE type = 'RecordVersionWritten' AND data->>'tenant' = $1 ORDER BY position`,
    [tenant],
  );
  return Promise.all(
    rows.map(({ data: d }) =>
      keys.open({ tenant, plugin: d.plugin, scope: d.scope, key: d.key, version: d.version, data_subject: d.data_subject ?? null }, 'body', d.body),
    ),
  );
};

const auditKinds = async (tenant: string, kind: string) => {
  await svc.runner.catchUp();
  const res = await fetch(`${svc.url}/v1/tenants/${tenant}/audit?kind=${kind}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

let writer: Caller;

beforeAll(async () => {
  svc = await startTestService();
  expect(
    (
      await svc.admin('POST', '/v1/tenants', {
        id: T,
        settings: { person_memory: [{ agent: 'scribe', purpose: 'routine:crm' }], person_shared_scopes: ['project:crm'] },
      })
    ).status,
  ).toBe(201);
  expect((await svc.admin('POST', `/v1/tenants/${T}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  // Records under the tenant's key and under a data subject's key, and a job left running.
  const plain = await caller(svc, T, { purpose: 'routine:crm' });
  expect((await plain.rec({ op: 'put', scope: 'project:crm', record_key: 'plan', body: { text: 'the plan' }, expect: 0 })).status).toBe(200);
  writer = await caller(svc, T, { purpose: 'routine:crm', data_subject: 'user:ada' });
  expect((await writer.rec({ op: 'put', scope: 'project:crm', record_key: 'ada', body: { text: 'about ada' }, expect: 0 })).status).toBe(200);
}, 120_000);
afterAll(async () => svc?.stop());

describe('removing a tenant by crypto-shredding its keys', () => {
  it("takes the admin key only: no key, a wrong one, the tenant's auditor key or an agent key are refused 401 and nothing is written", async () => {
    const auditor = (await svc.admin('POST', `/v1/tenants/${T}/auditor-keys`, {})).body.key as string;
    const agent = (await svc.admin('POST', `/v1/tenants/${T}/agent-keys`, { agent: 'scribe' })).body.key as string;
    const position = await svc.lastPosition();
    for (const credential of [null, 'wrong-key', `${ADMIN_KEY}x`, auditor, agent]) {
      const res = await fetch(`${svc.url}/v1/tenants/${T}`, {
        method: 'DELETE',
        headers: credential === null ? {} : { authorization: `Bearer ${credential}` },
      });
      expect({ credential, status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({
        credential,
        status: 401,
        error: 'unauthorized',
      });
    }
    expect(await svc.lastPosition()).toBe(position);
    expect(await keysOf(T)).toBeGreaterThan(0);
  });

  it('is refused while a legal hold is in force, naming the hold to release, and writes nothing', async () => {
    const hold = await svc.admin('POST', `/v1/tenants/${T}/holds`, { selector: { record: 'plan' }, reason: 'litigation' });
    expect(hold.status).toBe(201);
    const before = { position: await svc.lastPosition(), keys: await keysOf(T) };
    expect(before.keys).toBeGreaterThan(0);

    const refused = await svc.admin('DELETE', `/v1/tenants/${T}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'held', holds: [hold.body.hold.id] });
    expect(refused.body.message).toContain(`DELETE /v1/tenants/${T}/holds/`);
    expect(await svc.lastPosition()).toBe(before.position);
    expect(await keysOf(T)).toBe(before.keys);
    expect((await openedBodies(T)).every((b) => b !== null)).toBe(true);
    expect((await writer.rec({ op: 'get', scope: 'project:crm', record_key: 'ada' })).body.record.body.text).toBe('about ada');

    expect((await svc.admin('DELETE', `/v1/tenants/${T}/holds/${hold.body.hold.id}`)).status).toBe(200);
  });

  it('without a hold removes it: its jobs stop, its keys are shredded so its records never open again, and the audit log keeps the removal', async () => {
    const bodies = await openedBodies(T);
    expect(bodies.length).toBe(2);
    expect(bodies.every((b) => b !== null)).toBe(true);

    const removed = await svc.admin('DELETE', `/v1/tenants/${T}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ tenant: T, removed: true, already_removed: false, removed_ms: expect.any(Number) });
    expect(removed.body.stopped).toEqual(expect.arrayContaining([writer.job]));
    expect(removed.body.keys_shredded).toBeGreaterThan(0);

    expect(await keysOf(T)).toBe(0);
    expect(await openedBodies(T)).toEqual([null, null]);
    // The job that was running is stopped: its ticket reads nothing more.
    const late = await writer.rec({ op: 'get', scope: 'project:crm', record_key: 'ada' });
    expect({ status: late.status, error: late.body.error }).toEqual({ status: 403, error: 'revoked' });

    expect(await auditKinds(T, 'tenant_removed')).toEqual([expect.objectContaining({ kind: 'tenant_removed' })]);
    expect((await svc.admin('GET', `/v1/tenants/${T}/audit/checkpoint`)).status).toBe(200);
  });

  it('a second removal writes nothing and says the tenant was removed already', async () => {
    const position = await svc.lastPosition();
    const again = await svc.admin('DELETE', `/v1/tenants/${T}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ tenant: T, removed: true, already_removed: true, stopped: [], keys_shredded: 0 });
    expect(await svc.lastPosition()).toBe(position);
    expect(await auditKinds(T, 'tenant_removed')).toHaveLength(1);
  });

  it('later requests for the tenant answer 410 removed, saying what to do, and write nothing', async () => {
    const position = await svc.lastPosition();
    const asks: [string, string, unknown?][] = [
      ['GET', `/v1/tenants/${T}`],
      ['POST', '/v1/tenants', { id: T }],
      ['PATCH', `/v1/tenants/${T}`, { retention_days: 5 }],
      ['POST', `/v1/tenants/${T}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] }],
      ['POST', `/v1/tenants/${T}/jobs`, { agent: 'scribe', plugin: 'notes', subject: 's', purpose: 'routine:crm' }],
      ['POST', `/v1/tenants/${T}/holds`, { selector: { record: 'plan' }, reason: 'late' }],
      ['POST', `/v1/tenants/${T}/erasures`, { data_subject: 'user:ada' }],
      ['GET', `/v1/tenants/${T}/export`],
    ];
    for (const [method, path, body] of asks) {
      const res = await svc.admin(method, path, body);
      expect({ method, path, status: res.status, error: res.body.error }).toEqual({ method, path, status: 410, error: 'removed' });
      expect(res.body.message).toMatch(/was removed .*: its id is not used again; create a tenant under another id/);
    }
    expect(await svc.lastPosition()).toBe(position);
  });

  it('import into a tenant with records answers not_empty pointing at a new tenant, and at removal', async () => {
    expect((await svc.admin('POST', '/v1/tenants', { id: 'full' })).status).toBe(201);
    expect((await svc.admin('POST', '/v1/tenants/full/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
    const c = await caller(svc, 'full');
    expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'k', body: { a: 1 }, expect: 0 })).status).toBe(200);
    const exported = await fetch(`${svc.url}/v1/tenants/full/export`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const res = await svc.admin('POST', '/v1/tenants/full/import', await exported.text(), { 'content-type': 'application/x-ndjson' });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('not_empty');
    expect(res.body.message).toContain('POST /v1/tenants');
    expect(res.body.message).toContain('DELETE /v1/tenants/{t}');
  });
});

describe('custodian tenant remove', () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const cli = (...args: string[]) =>
    new Promise<{ code: number; out: string; err: string }>((resolve) =>
      execFile(
        process.execPath,
        [path.join(root, 'bin/custodian.js'), ...args],
        { encoding: 'utf8', env: { ...process.env, CUSTODIAN_URL: svc.url, CUSTODIAN_ADMIN_KEY: ADMIN_KEY } },
        (error, out, err) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err }),
      ),
    );

  it('asks for --yes and writes nothing without it; with it, removes the tenant and prints the answer', async () => {
    expect((await svc.admin('POST', '/v1/tenants', { id: 'cli-gone' })).status).toBe(201);
    const position = await svc.lastPosition();
    const unconfirmed = await cli('tenant', 'remove', '--tenant', 'cli-gone');
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.err).toContain('run it again with --yes');
    expect(await svc.lastPosition()).toBe(position);
    expect((await svc.admin('GET', '/v1/tenants/cli-gone')).status).toBe(200);

    const removed = await cli('tenant', 'remove', '--tenant', 'cli-gone', '--yes');
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.out)).toMatchObject({ tenant: 'cli-gone', removed: true, already_removed: false });
    expect((await svc.admin('GET', '/v1/tenants/cli-gone')).body).toMatchObject({ error: 'removed', tenant: 'cli-gone' });
  });
});
