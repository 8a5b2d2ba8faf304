import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme', settings: { grants: { boss: ['plugin:worker'] } } });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'boss', functions: ['plan'], agents: ['lead'] });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'worker', functions: ['do'], agents: ['hand'] });
});
afterAll(async () => svc?.stop());

const start = (body: Record<string, unknown>) =>
  svc.admin('POST', '/v1/tenants/acme/jobs', { agent: 'lead', plugin: 'boss', subject: 'user:ada', input: 'plan it', ...body });

describe('block 0 and the envelope hash', () => {
  it('answers the job with its envelope; a retry gets the same envelope, a restart after the end a new one', async () => {
    const first = await start({ id: 'root-1', budget_usd: 5, constraints: ['no personal data leaves the EU'] });
    expect(first.status).toBe(201);
    const { envelope, job } = first.body;
    expect(envelope.blocks).toHaveLength(1);
    expect(envelope.blocks[0].block).toMatchObject({
      subject: 'user:ada',
      agent: 'lead',
      plugin: 'boss',
      install_gen: 1,
      budget_usd: 5,
      epoch: 1,
      level: 'L2',
      depth: 0,
    });
    expect(Object.keys(envelope.blocks[0].block).sort()).toEqual([
      'agent',
      'agent_version',
      'budget_usd',
      'constraints_digest',
      'depth',
      'epoch',
      'expires_ms',
      'granted_by',
      'install_gen',
      'job',
      'labels',
      'level',
      'level_policy_version',
      'max_depth',
      'plugin',
      'policy_version',
      'purpose',
      'run',
      'scopes',
      'subject',
    ]);
    expect(job.envelope).toBe(envelope.hash);
    expect(job.constraints_digest).toMatch(/^[0-9a-f]{64}$/);
    const retry = await start({ id: 'root-1', budget_usd: 5, constraints: ['no personal data leaves the EU'] });
    expect(retry.status).toBe(200);
    expect(retry.body.envelope.hash).toBe(envelope.hash);
    await svc.admin('POST', '/v1/tenants/acme/jobs/root-1/end');
    const again = await start({ id: 'root-1', budget_usd: 5, constraints: ['no personal data leaves the EU'] });
    expect(again.status).toBe(201);
    expect(again.body.envelope.hash).not.toBe(envelope.hash);
    expect((await svc.admin('GET', '/v1/tenants/acme/jobs/root-1')).body.job.envelope).toBe(again.body.envelope.hash);
  });
});

describe('delegation only narrows', () => {
  it('appends a narrowed block for a child and copies constraints word for word', async () => {
    await start({ id: 'parent-1', budget_usd: 10, max_depth: 2, constraints: ['cite the ticket'] });
    const child = await svc.admin('POST', '/v1/tenants/acme/jobs', {
      id: 'child-1',
      agent: 'hand',
      plugin: 'worker',
      subject: 'user:ada',
      parent: 'parent-1',
      budget_usd: 4,
    });
    expect(child.status).toBe(201);
    const blocks = child.body.envelope.blocks;
    expect(blocks).toHaveLength(2);
    expect(blocks[1].block).toMatchObject({
      depth: 1,
      budget_usd: 4,
      subject: 'user:ada',
      epoch: 1,
      scopes: ['agent:worker/hand', 'plugin:worker', 'tool:worker/do'],
    });
    expect(child.body.job).toMatchObject({ parent: 'parent-1', constraints: ['cite the ticket'] });
    const parent = await svc.admin('GET', '/v1/tenants/acme/jobs/parent-1');
    expect(child.body.job.constraints_digest).toBe(parent.body.job.constraints_digest);
    // The child's calls reach only its narrowed scopes.
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs/child-1/calls', { function: 'do' })).status).toBe(201);
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs/child-1/calls', { function: 'boss/plan' })).body.error).toBe('scope');
  });

  it('refuses a child asking for more, names the field, and records the refusal on the parent', async () => {
    await start({ id: 'parent-2', budget_usd: 10 });
    const wider = await svc.admin('POST', '/v1/tenants/acme/jobs', {
      id: 'child-2',
      agent: 'hand',
      plugin: 'worker',
      subject: 'user:ada',
      parent: 'parent-2',
      budget_usd: 11,
    });
    expect(wider.status).toBe(403);
    expect(wider.body).toEqual({ error: 'widening_refused', message: expect.any(String), field: 'budget_usd', reason: expect.any(String) });
    const { rows } = await svc.pool.query(`SELECT data FROM custodian_events WHERE type = 'EnvelopeWideningRefused' AND stream = 'job:acme:parent-2'`);
    expect(rows.map((r) => r.data)).toEqual([expect.objectContaining({ child: 'child-2', field: 'budget_usd' })]);
    expect((await svc.admin('GET', '/v1/tenants/acme/jobs/child-2')).status).toBe(404);
  });
});

describe('a tampered block gives the job nothing', () => {
  it('refuses calls when one byte of a stored block changes, in the log or in the read model', async () => {
    const c = await caller(svc, 'acme', { agent: 'lead', plugin: 'boss', fn: 'plan', job: 'tamper-1' });
    expect((await c.rec({ op: 'list' })).status).toBe(200);
    // One flipped byte in the read model's copy: the records fence refuses.
    await svc.pool.query(`UPDATE rm_jobs SET chain = jsonb_set(chain, '{0,block,budget_usd}', '999') WHERE tenant = 'acme' AND id = 'tamper-1'`);
    expect(await c.rec({ op: 'list' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    // One flipped byte in the log: minting refuses.
    await svc.pool.query(
      `UPDATE custodian_events SET data = jsonb_set(data, '{signed,block,subject}', to_jsonb('user:adb'::text)) WHERE stream = 'job:acme:tamper-1' AND type = 'EnvelopeBlockAppended'`,
    );
    const minted = await svc.admin('POST', '/v1/tenants/acme/jobs/tamper-1/calls', { function: 'plan' });
    expect(minted.status).toBe(403);
    expect(minted.body.error).toBe('envelope_invalid');
    // An untouched job is unaffected.
    const other = await caller(svc, 'acme', { agent: 'lead', plugin: 'boss', fn: 'plan' });
    expect((await records(svc, other.ticket, { op: 'list' })).status).toBe(200);
  });
});
