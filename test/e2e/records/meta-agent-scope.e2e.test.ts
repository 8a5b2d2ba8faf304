import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { records } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect(
    (await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save', 'boot'], agents: ['planner'], startup: 'boot' })).status,
  ).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/jobs', { id: 'j1', agent: 'planner', plugin: 'notes', subject: 's', input: 'plan' })).status).toBe(201);
});
afterAll(async () => {
  await svc?.stop();
});

describe("a call's _meta names the agent so that agent:<agent> is its own scope", () => {
  const putOwn = async (meta: { ticket: string; agent: string }) =>
    records(svc, meta.ticket, { op: 'put', scope: `agent:${meta.agent}`, record_key: 'plan', body: { step: 1 }, expect: 0 });

  it('a minted call: agent is the name the plugin declares, and a put to agent:<agent> is accepted', async () => {
    const minted = await svc.admin('POST', '/v1/tenants/acme/jobs/j1/calls', { function: 'save' });
    expect(minted.status).toBe(201);
    const meta = minted.body._meta['oz0/records'];
    expect(meta.agent).toBe('planner');
    const put = await putOwn(meta);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ version: 1, scope: 'agent:planner', key: 'plan' });
  });

  it('a start-up call: the same agent name', async () => {
    await svc.admin('POST', '/v1/tenants/acme/jobs', { id: 'j2', agent: 'planner', plugin: 'notes', subject: 's', input: 'plan' });
    const prepared = await svc.admin('POST', '/v1/tenants/acme/jobs/j2/startup', { budget: 1000 });
    expect(prepared.status).toBe(200);
    expect(prepared.body.plugins[0]._meta['oz0/records'].agent).toBe('planner');
  });
});
