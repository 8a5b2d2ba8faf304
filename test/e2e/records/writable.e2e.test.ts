import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
const T = 'wr';
const PURPOSE = 'routine:crm';

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', {
    id: T,
    settings: { person_memory: [{ agent: 'scribe', purpose: PURPOSE }], person_shared_scopes: ['tenant'] },
  });
  await svc.admin('POST', `/v1/tenants/${T}/plugins`, { name: 'notes', scopes: ['agent', 'tenant'], functions: ['save'], agents: ['scribe', 'other'] });
  const scribe = await caller(svc, T, { purpose: PURPOSE });
  for (const [key, extra] of [
    ['pref', { subject_kind: 'person' }],
    ['doc', {}],
    ['closing', {}],
  ] as const) {
    const r = await scribe.rec({ op: 'put', scope: 'tenant', record_key: key, body: { key }, expect: 0, ...extra });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  }
  await scribe.rec({ op: 'put', scope: 'tenant', record_key: 'closing', body: {}, expect: 1, closed: true });
});
afterAll(async () => svc?.stop());

/** Reads a record's `writable`, then tries the put it promises: both must agree. */
const writableAgreesWithPut = async (c: Caller, key: string) => {
  const record = (await c.rec({ op: 'get', scope: 'tenant', record_key: key })).body.record;
  const put = await c.rec({ op: 'put', scope: 'tenant', record_key: key, body: { again: true }, expect: record.version });
  return { writable: record.writable as boolean, put: put.status === 200 ? 'written' : put.body.error };
};

describe('writable is whether the next put would pass checks 4, 7, 8 and 9', () => {
  it('a person record read by an agent without memory about people is not writable (person_off)', async () => {
    const other = await caller(svc, T, { agent: 'other', purpose: PURPOSE });
    expect(await writableAgreesWithPut(other, 'pref')).toEqual({ writable: false, put: 'person_off' });
  });

  it("a work record read by a data subject's job without memory about people is not writable (person_off)", async () => {
    const other = await caller(svc, T, { agent: 'other', purpose: PURPOSE, data_subject: 'user:ada' });
    expect(await writableAgreesWithPut(other, 'doc')).toEqual({ writable: false, put: 'person_off' });
  });

  it('a person record in a scope the tenant no longer shares is not writable (person_scope)', async () => {
    const t2 = 'wr2';
    await svc.admin('POST', '/v1/tenants', { id: t2, settings: { person_memory: [{ agent: 'scribe', purpose: PURPOSE }], person_shared_scopes: ['tenant'] } });
    await svc.admin('POST', `/v1/tenants/${t2}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] });
    const first = await caller(svc, t2, { purpose: PURPOSE });
    expect((await first.rec({ op: 'put', scope: 'tenant', record_key: 'pref', body: {}, expect: 0, subject_kind: 'person' })).status).toBe(200);
    expect((await svc.admin('PATCH', `/v1/tenants/${t2}`, { person_shared_scopes: [] })).status).toBe(200);
    const later = await caller(svc, t2, { purpose: PURPOSE });
    const record = (await later.rec({ op: 'list', list: { scopes: ['tenant'] } })).body.records[0];
    expect(record).toMatchObject({ key: 'pref', writable: false });
    expect((await later.rec({ op: 'put', scope: 'tenant', record_key: 'pref', body: {}, expect: 1 })).body.error).toBe('person_scope');
  });

  it('records the calling job may write show writable: true, and the put passes', async () => {
    const scribe = await caller(svc, T, { purpose: PURPOSE });
    expect(await writableAgreesWithPut(scribe, 'pref')).toEqual({ writable: true, put: 'written' });
    const other = await caller(svc, T, { agent: 'other', purpose: PURPOSE });
    expect(await writableAgreesWithPut(other, 'doc')).toEqual({ writable: true, put: 'written' });
    expect(await writableAgreesWithPut(other, 'closing')).toEqual({ writable: true, put: 'written' });
  });

  it('a record of another purpose is not writable (purpose)', async () => {
    await svc.admin('PATCH', `/v1/tenants/${T}`, { compatible_purposes: { 'routine:other': [PURPOSE] } });
    const reader = await caller(svc, T, { purpose: 'routine:other' });
    expect(await writableAgreesWithPut(reader, 'doc')).toEqual({ writable: false, put: 'purpose' });
  });
});
