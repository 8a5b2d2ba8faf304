import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointSigned, type Checkpoint } from '../../../domain/audit/verify.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import { auditProjection } from '../../../projections/audit.ts';
import { rebuildProjection } from '../../../projections/runner.ts';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;

const get = async (p: string) => {
  const res = await fetch(`${svc.url}${p}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  return res.text();
};
const lines = async () => (await get('/v1/tenants/acme/audit')).split('\n').filter(Boolean);
const checkpoint = async () => JSON.parse(await get('/v1/tenants/acme/audit/checkpoint')) as Checkpoint;

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe', 'clerk'] });
});
afterAll(async () => {
  await svc?.stop();
});

describe('the audit projection rebuilds to the same bytes', () => {
  it('after a job id is started again by another agent, for another subject, a rebuild gives identical leaves and the same signed root', async () => {
    // Run 1 of job "again": scribe for ada writes and reads.
    const first = await caller(svc, 'acme', { job: 'again', agent: 'scribe', input: 'first run', start: { subject: 'user:ada' } });
    expect((await first.rec({ op: 'put', scope: 'tenant', record_key: 'r1', body: { n: 1 }, expect: 0 })).status).toBe(200);
    expect((await first.rec({ op: 'get', scope: 'tenant', record_key: 'r1' })).status).toBe(200);
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs/again/end')).status).toBe(200);
    // Run 2 under the same id: another agent, purpose and subject.
    const second = await caller(svc, 'acme', { job: 'again', agent: 'clerk', input: 'second run', start: { subject: 'user:bob' } });
    expect((await second.rec({ op: 'list' })).status).toBe(200);
    await svc.runner.catchUp();

    const before = await lines();
    const signed = await checkpoint();
    const written = before.map((l) => JSON.parse(l)).find((e) => e.kind === 'write');
    expect(written).toMatchObject({ job: 'again', agent: 'scribe', subject: 'user:ada' });

    await rebuildProjection(svc.store, postgresReadModelStore(svc.pool), auditProjection);

    expect(await lines()).toEqual(before);
    const after = await checkpoint();
    expect(after.root).toBe(signed.root);
    expect(after.size).toBe(signed.size);
    // The checkpoint signed before the rebuild still verifies against the rebuilt tree's root.
    const pem = await (await fetch(`${svc.url}/v1/audit-key`)).text();
    expect(checkpointSigned(pem, { ...signed, root: after.root })).toBe(true);
  });
});
