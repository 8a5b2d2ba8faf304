import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', {
    id: 'acme',
    settings: { person_memory: [{ agent: 'scribe', purpose: 'routine:crm' }], person_shared_scopes: ['project:crm'] },
  });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => svc?.stop());

const removals = async () => {
  // The replay serves the lines already in the tree: the integrator runs after the answers.
  await svc.runner.catchUp();
  const res = await fetch(`${svc.url}/v1/tenants/acme/audit?kind=record_removed`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l))
    .filter((l) => l.kind === 'record_removed');
};

describe('a record_removed audit entry names the versions removed', () => {
  it('names the last version removed and how many went, and a key written again counts from 1', async () => {
    const ada = await caller(svc, 'acme', { purpose: 'routine:crm', data_subject: 'user:ada' });
    for (let v = 1; v <= 3; v++)
      expect((await ada.rec({ op: 'put', scope: 'project:crm', record_key: 'ada', body: { n: v }, expect: v - 1 })).status).toBe(200);
    expect((await ada.rec({ op: 'put', scope: 'project:crm', record_key: 'ada-once', body: { n: 1 }, expect: 0 })).status).toBe(200);
    expect((await svc.admin('POST', '/v1/tenants/acme/erasures', { data_subject: 'user:ada' })).status).toBe(200);

    const first = await removals();
    expect(first).toHaveLength(2);
    const byKey = Object.fromEntries(first.map((e) => [e.records[0].key, e]));
    expect(byKey.ada).toMatchObject({ records: [{ scope: 'project:crm', key: 'ada', version: 3 }], versions_removed: 3, reason: 'erasure' });
    expect(byKey['ada-once']).toMatchObject({ records: [{ scope: 'project:crm', key: 'ada-once', version: 1 }], versions_removed: 1 });

    // The key starts again at version 1 after its removal; its next removal names only what it had then.
    const again = await caller(svc, 'acme', { purpose: 'routine:crm', data_subject: 'user:ada' });
    expect((await again.rec({ op: 'put', scope: 'project:crm', record_key: 'ada', body: { n: 1 }, expect: 0 })).status).toBe(200);
    expect((await svc.admin('POST', '/v1/tenants/acme/erasures', { data_subject: 'user:ada' })).status).toBe(200);
    const second = (await removals()).slice(2);
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ records: [{ key: 'ada', version: 1 }], versions_removed: 1 });
  });
});
