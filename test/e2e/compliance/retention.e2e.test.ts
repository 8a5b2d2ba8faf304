import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

const DAY = 86_400_000;
let svc: TestService;
let n = 0;

const setup = async () => {
  const t = `ret${++n}`;
  await svc.admin('POST', '/v1/tenants', {
    id: t,
    settings: { retention_days: 10, person_memory: [{ agent: 'scribe', purpose: 'routine:keep' }], caps: { records: 2, bytes: 100_000 } },
  });
  await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] });
  const c = await caller(svc, t, { purpose: 'routine:keep', start: { timeout_ms: 300 * DAY } });
  return { t, c };
};
const now = async () => (await svc.admin('POST', '/v1/_clock', { advance_ms: 0 })).body.now_ms as number;
const advance = (days: number) => svc.admin('POST', '/v1/_clock', { advance_ms: days * DAY });
const run = async (t: string) => {
  const r = await svc.admin('POST', `/v1/tenants/${t}/retention/run`);
  expect(r.status).toBe(200);
  return r.body;
};
const keysHeld = async (t: string, key: string) =>
  (await svc.pool.query('SELECT count(*)::int AS n FROM custodian_data_keys WHERE tenant = $1 AND record_key = $2', [t, key])).rows[0].n as number;
const get = async (c: Caller, key: string) => (await c.rec({ op: 'get', scope: 'agent:scribe', record_key: key })).body.record;

beforeAll(async () => {
  svc = await startTestService({ testClock: true });
});
afterAll(async () => svc?.stop());

describe('retention on the service clock', () => {
  it('deletes a person record at its end and shreds its keys', async () => {
    const { t, c } = await setup();
    const end = (await now()) + 2 * DAY;
    await c.rec({ op: 'put', scope: 'agent:scribe', record_key: 'pref', body: { likes: 'tea' }, expect: 0, subject_kind: 'person', ends_at: end });
    expect(await run(t)).toEqual({ person_deleted: 0, removed: 0, renewals_requested: 0, deferred: 0 });
    expect(await keysHeld(t, 'pref')).toBe(1);
    await advance(2);
    expect(await run(t)).toMatchObject({ person_deleted: 1 });
    const later = await caller(svc, t, { purpose: 'routine:keep', job: c.job, start: { timeout_ms: 300 * DAY } });
    expect(await get(later, 'pref')).toBeUndefined();
    expect(await keysHeld(t, 'pref')).toBe(0);
    const { rows } = await svc.pool.query(`SELECT data FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'tenant' = $1`, [t]);
    expect(rows.map((r) => r.data.reason)).toEqual(['person_end']);
  });

  it('asks once for renewal of a work record at its end, and removes it retention_days later', async () => {
    const { t, c } = await setup();
    const end = (await now()) + DAY;
    await c.rec({ op: 'put', scope: 'agent:scribe', record_key: 'doc', body: { v: 1 }, expect: 0, ends_at: end });
    await advance(1);
    expect(await run(t)).toMatchObject({ renewals_requested: 1, removed: 0 });
    expect(await run(t)).toMatchObject({ renewals_requested: 0 });
    const renewals = await svc.admin('GET', `/v1/tenants/${t}/renewals?plugin=notes`);
    expect(renewals.body.renewals).toEqual([
      { plugin: 'notes', scope: 'agent:scribe', key: 'doc', version: 1, ends_at: end, requested_ms: expect.any(Number) },
    ]);
    // Past its end it leaves lists, but stays (and counts under the caps) until retention.
    const c2 = await caller(svc, t, { purpose: 'routine:keep', job: c.job, start: { timeout_ms: 300 * DAY } });
    expect((await c2.rec({ op: 'list' })).body.records).toEqual([]);
    expect((await c2.rec({ op: 'list', list: { ended: true } })).body.records.map((r: any) => r.key)).toEqual(['doc']);
    await c2.rec({ op: 'put', scope: 'agent:scribe', record_key: 'other', body: {}, expect: 0 });
    expect((await c2.rec({ op: 'put', scope: 'agent:scribe', record_key: 'third', body: {}, expect: 0 })).body).toMatchObject({
      error: 'full',
      cap: 'records',
    });
    await advance(10);
    expect(await run(t)).toMatchObject({ removed: 1 });
    expect(await get(c2, 'doc')).toBeUndefined();
    expect(await keysHeld(t, 'doc')).toBe(0);
    expect((await svc.admin('GET', `/v1/tenants/${t}/renewals`)).body.renewals).toEqual([]);
    // Its place under the cap is free again.
    expect((await c2.rec({ op: 'put', scope: 'agent:scribe', record_key: 'third', body: {}, expect: 0 })).body.version).toBe(1);
  });

  it('a renewed record (a new version) is not asked again', async () => {
    const { t, c } = await setup();
    const start = await now();
    await c.rec({ op: 'put', scope: 'agent:scribe', record_key: 'r', body: {}, expect: 0, ends_at: start + DAY });
    await advance(1);
    expect(await run(t)).toMatchObject({ renewals_requested: 1 });
    await c.rec({ op: 'put', scope: 'agent:scribe', record_key: 'r', body: {}, expect: 1, ends_at: start + 30 * DAY });
    expect((await svc.admin('GET', `/v1/tenants/${t}/renewals`)).body.renewals).toEqual([]);
    expect(await run(t)).toMatchObject({ renewals_requested: 0, removed: 0 });
  });
});

describe('legal holds', () => {
  it('keep held records from retention until released', async () => {
    const { t, c } = await setup();
    await c.rec({ op: 'put', scope: 'agent:scribe', record_key: 'held', body: {}, expect: 0, subject_kind: 'person', ends_at: (await now()) + DAY });
    const hold = await svc.admin('POST', `/v1/tenants/${t}/holds`, { selector: { plugin: 'notes', scope: 'agent:scribe' }, reason: 'litigation 42' });
    expect(hold.status).toBe(201);
    await advance(2);
    expect(await run(t)).toMatchObject({ person_deleted: 0, deferred: 1 });
    const c2 = await caller(svc, t, { purpose: 'routine:keep', job: c.job, start: { timeout_ms: 300 * DAY } });
    // Past its end a person record is deleted for every read (SPEC §7, issue 12 item 9); the
    // hold keeps it from removal: its events and keys stay until the hold is released.
    expect((await c2.rec({ op: 'get', scope: 'agent:scribe', record_key: 'held' })).body.record).toBeUndefined();
    expect(await keysHeld(t, 'held')).toBe(1);
    expect((await svc.admin('DELETE', `/v1/tenants/${t}/holds/${hold.body.hold.id}`)).status).toBe(200);
    expect(await run(t)).toMatchObject({ person_deleted: 1, deferred: 0 });
    expect(await keysHeld(t, 'held')).toBe(0);
  });

  it('refuses an empty selector and an unknown hold', async () => {
    const { t } = await setup();
    expect((await svc.admin('POST', `/v1/tenants/${t}/holds`, { selector: {}, reason: 'x' })).status).toBe(400);
    expect((await svc.admin('DELETE', `/v1/tenants/${t}/holds/${crypto.randomUUID()}`)).body).toEqual({
      error: 'not_found',
      message: expect.any(String),
      what: 'hold',
    });
  });
});
