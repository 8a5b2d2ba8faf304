import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purposeOfInput } from '../../../domain/jobs/purpose.ts';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save', 'boot'], agents: ['scribe', 'other'], startup: 'boot' });
});
afterAll(async () => svc?.stop());

describe('records API: put, get, history, list', () => {
  it('writes versions and reads them back, each answer naming the job purpose', async () => {
    const c = await caller(svc, 'acme');
    const purpose = purposeOfInput('default input');
    const v1 = await c.rec({ op: 'put', scope: 'tenant', record_key: 'decisions/deploy', body: { text: 'Wednesdays' }, expect: 0 });
    expect(v1).toEqual({ status: 200, body: { version: 1, scope: 'tenant', key: 'decisions/deploy', job_purpose: purpose } });
    const v2 = await c.rec({ op: 'put', scope: 'tenant', record_key: 'decisions/deploy', body: { text: 'Thursdays' }, expect: 1, kind: 'decision' });
    expect(v2.body.version).toBe(2);

    const got = await c.rec({ op: 'get', scope: 'tenant', record_key: 'decisions/deploy' });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      job_purpose: purpose,
      record: {
        scope: 'tenant',
        key: 'decisions/deploy',
        version: 2,
        body: { text: 'Thursdays' },
        kind: 'decision',
        state: 'active',
        supersedes: null,
        subject_kind: 'work',
        purpose,
        closed: false,
        labels: [],
        writable: true,
      },
    });
    expect(got.body.record.created_ms).toEqual(expect.any(Number));
    expect(got.body.record.ends_at).toBeGreaterThan(got.body.record.created_ms + 89 * 86_400_000);
    const old = await c.rec({ op: 'get', scope: 'tenant', record_key: 'decisions/deploy', version: 1 });
    expect(old.body.record).toMatchObject({ version: 1, body: { text: 'Wednesdays' }, kind: 'note' });
    expect((await c.rec({ op: 'get', scope: 'tenant', record_key: 'nothing' })).body).toEqual({ job_purpose: purpose });

    const history = await c.rec({ op: 'history', scope: 'tenant', record_key: 'decisions/deploy' });
    expect(history.body.records.map((r: any) => r.version)).toEqual([2, 1]);

    const listed = await c.rec({ op: 'list', list: { scopes: ['tenant'] } });
    expect(listed.body).toMatchObject({ withheld: 0, more: false, job_purpose: purpose });
    expect(listed.body.records.map((r: any) => [r.key, r.version])).toEqual([['decisions/deploy', 2]]);
  });
});
