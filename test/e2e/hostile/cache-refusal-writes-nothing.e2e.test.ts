import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, warm } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over the call-context cache: "every refusal writes nothing" for a new
 * record's put on a warm ticket whose guard fails. The keystore writes the record's data key
 * row in the guard's transaction before the guard is checked; when the check fails, the
 * transaction still commits (the row with it), though the request is then refused in full.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => {
  a = await startTestService();
  b = await startTestService({ shareWith: a });
  await a.admin('POST', '/v1/tenants', { id: 'acme' });
  await a.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe', 'helper'] });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const keyRows = async (scope: string, key: string) =>
  (await a.pool.query(`SELECT key_id FROM custodian_data_keys WHERE tenant = 'acme' AND scope = $1 AND record_key = $2`, [scope, key])).rows;

describe('a new record put on a warm ticket that another instance ended', () => {
  it('is refused and leaves no data key row behind (the refusal writes nothing)', async () => {
    const c = await caller(a, 'acme');
    await warm(a, c);
    expect((await b.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls/${c.call}/end`)).status).toBe(200);
    const before = await a.lastPosition();
    const put = await c.rec({ op: 'put', scope: 'project:ghost', record_key: 'ghost', body: { secret: 1 }, expect: 0 });
    expect(put).toMatchObject({ status: 401, body: { error: 'ticket' } });
    expect(await a.lastPosition()).toBe(before);
    expect(await keyRows('project:ghost', 'ghost')).toEqual([]);
  });

  it('the same put on a cold ticket (no cache) writes no key row: the baseline', async () => {
    const c = await caller(a, 'acme');
    expect((await b.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls/${c.call}/end`)).status).toBe(200);
    const put = await c.rec({ op: 'put', scope: 'project:ghost', record_key: 'cold', body: { secret: 1 }, expect: 0 });
    expect(put).toMatchObject({ status: 401, body: { error: 'ticket' } });
    expect(await keyRows('project:ghost', 'cold')).toEqual([]);
  });
});
