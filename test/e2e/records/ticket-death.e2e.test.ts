import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Tickets die with their call on every instance: whatever an instance keeps about a call
 * between requests, an end answered by another instance refuses the ticket on its next request.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

describe('ticket death across two instances', () => {
  it('a call ended on A refuses its ticket on B at once', async () => {
    const c = await caller(a, 'acme');
    // B has served the ticket, so anything it keeps about the call is warm.
    for (let i = 0; i < 3; i++) expect((await records(b, c.ticket, { op: 'list' })).status).toBe(200);
    expect((await a.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls/${c.call}/end`)).status).toBe(200);
    expect(await records(b, c.ticket, { op: 'list' })).toMatchObject({ status: 401, body: { error: 'ticket' } });
  });

  it('a job ended on A refuses every ticket of the job on B at once', async () => {
    const c = await caller(a, 'acme');
    expect((await records(b, c.ticket, { op: 'put', scope: 'project:x', record_key: 'k', body: {}, expect: 0 })).status).toBe(200);
    expect((await a.admin('POST', `/v1/tenants/acme/jobs/${c.job}/end`)).status).toBe(200);
    expect((await records(b, c.ticket, { op: 'get', scope: 'project:x', record_key: 'k' })).body).toMatchObject({ error: 'ticket' });
  });

  it('a settings change on A is applied by B on the next request', async () => {
    const c = await caller(a, 'acme');
    expect((await records(b, c.ticket, { op: 'put', scope: 'project:caps', record_key: 'one', body: {}, expect: 0 })).status).toBe(200);
    expect((await a.admin('PATCH', '/v1/tenants/acme', { caps: { records: 1, bytes: 1_000_000 } })).status).toBe(200);
    expect((await records(b, c.ticket, { op: 'put', scope: 'project:caps', record_key: 'two', body: {}, expect: 0 })).body).toMatchObject({
      error: 'full',
      limit: 1,
    });
  });
});
