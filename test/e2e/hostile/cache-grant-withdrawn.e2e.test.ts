import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over the call-context cache: a grant withdrawn by a PATCH on B while a
 * delegated call's ticket is warm on A. The warm ticket must answer as a cold call of the
 * same job on B, for every op, writing nothing when refused.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => {
  a = await startTestService();
  b = await startTestService({ shareWith: a });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

let n = 0;
describe('a grant withdrawn on B while a delegated ticket is warm on A', () => {
  it.each(['put', 'get', 'history', 'list'] as const)('%s on A answers as a cold call of the job on B', async (op) => {
    const t = `grant${++n}`;
    expect((await a.admin('POST', '/v1/tenants', { id: t, settings: { grants: { mail: ['plugin:notes'] } } })).status).toBeLessThan(300);
    await a.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] });
    await a.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'mail', functions: ['send'], agents: ['postman'] });
    const notes = await caller(a, t);
    expect((await notes.rec({ op: 'put', scope: 'tenant', record_key: 'n1', body: { x: 1 }, expect: 0 })).status).toBe(200);
    const mail = await caller(a, t, { agent: 'postman', plugin: 'mail', fn: 'notes/save' });
    await warm(a, mail);
    const cold = await a.admin('POST', `/v1/tenants/${t}/jobs/${mail.job}/calls`, { function: 'notes/save' });
    expect(cold.status).toBe(201);
    const coldTicket: string = cold.body._meta['oz0/records'].ticket;
    expect((await b.admin('PATCH', `/v1/tenants/${t}`, { grants: {} })).status).toBe(200);
    const body = (key: string) =>
      op === 'put' ? { op, scope: 'tenant', record_key: key, body: {}, expect: 0 } : op === 'list' ? { op } : { op, scope: 'tenant', record_key: 'n1' };
    const before = await a.lastPosition();
    const onA = await records(a, mail.ticket, body('from-a'));
    const afterA = await a.lastPosition();
    const onB = await records(b, coldTicket, body('from-b'));
    expect(onB.status).toBeGreaterThanOrEqual(400);
    expect({ status: onA.status, error: onA.body.error }).toEqual({ status: onB.status, error: onB.body.error });
    expect(afterA).toBe(before);
  });
});
