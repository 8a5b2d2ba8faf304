import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complianceCommands } from '../../../commands/compliance.ts';
import { recordCommands } from '../../../commands/records.ts';
import { newAuditKey, receiptSigner } from '../../../adapters/keys/audit-key.ts';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import type { Sql } from '../../../domain/ports/read-model.ts';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

const DAY = 86_400_000;
let svc: TestService;
let n = 0;

const setup = async () => {
  const t = `rr${++n}`;
  await svc.admin('POST', '/v1/tenants', { id: t, settings: { retention_days: 10, person_memory: [{ agent: 'scribe', purpose: 'routine:keep' }] } });
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
const put = async (c: Caller, key: string, expect: number, extra: Record<string, unknown> = {}) => {
  const r = await c.rec({ op: 'put', scope: 'agent:scribe', record_key: key, body: { key }, expect, ...extra });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body;
};
const removals = async (t: string) =>
  (await svc.pool.query(`SELECT data->>'key' AS key FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'tenant' = $1`, [t])).rows.map((r) => r.key);
const keysHeld = async (t: string, key: string) =>
  (await svc.pool.query('SELECT count(*)::int AS n FROM custodian_data_keys WHERE tenant = $1 AND record_key = $2', [t, key])).rows[0].n as number;

beforeAll(async () => {
  svc = await startTestService({ testClock: true });
});
afterAll(async () => svc?.stop());

describe('closed and deleted records are never asked for renewal', () => {
  it('at their end only the record in force raises a review, once per version', async () => {
    const { t, c } = await setup();
    const end = (await now()) + DAY;
    await put(c, 'shut', 0);
    await put(c, 'shut', 1, { closed: true, ends_at: end });
    await put(c, 'gone', 0);
    await put(c, 'gone', 1, { state: 'deleted', ends_at: end });
    await put(c, 'kept', 0, { ends_at: end });
    await advance(2);
    expect(await run(t)).toMatchObject({ renewals_requested: 1, removed: 0 });
    expect((await svc.admin('GET', `/v1/tenants/${t}/renewals`)).body.renewals.map((r: any) => r.key)).toEqual(['kept']);
    expect(await run(t)).toMatchObject({ renewals_requested: 0 });
  });
});

describe('a person record is deleted at its end', () => {
  it('from that instant no read returns it, before retention runs; retention then removes it and shreds its keys', async () => {
    const { t, c } = await setup();
    await put(c, 'pref', 0, { subject_kind: 'person', ends_at: (await now()) + DAY });
    await put(c, 'work', 0, { ends_at: (await now()) + DAY });
    await advance(1);
    const r = await caller(svc, t, { purpose: 'routine:keep', job: c.job, start: { timeout_ms: 300 * DAY } });
    expect((await r.rec({ op: 'get', scope: 'agent:scribe', record_key: 'pref' })).body).not.toHaveProperty('record');
    expect((await r.rec({ op: 'get', scope: 'agent:scribe', record_key: 'pref', version: 1 })).body).not.toHaveProperty('record');
    expect((await r.rec({ op: 'history', scope: 'agent:scribe', record_key: 'pref' })).body.records).toEqual([]);
    expect((await r.rec({ op: 'list' })).body.records).toEqual([]);
    // A work record past its end is a review date: it stays readable, and listed with ended.
    expect((await r.rec({ op: 'list', list: { ended: true, deleted: true } })).body.records.map((x: any) => x.key)).toEqual(['work']);
    expect(await keysHeld(t, 'pref')).toBe(1);
    expect(await run(t)).toMatchObject({ person_deleted: 1 });
    expect(await removals(t)).toEqual(['pref']);
    expect(await keysHeld(t, 'pref')).toBe(0);
  });
});

describe('a person record is deleted at its end: writing its key again', () => {
  it('starts a new record; the old versions never come back and their keys are shredded', async () => {
    const { t, c } = await setup();
    await put(c, 'pref', 0, { subject_kind: 'person', ends_at: (await now()) + DAY, body: { likes: 'tea' } });
    await put(c, 'pref', 1, { subject_kind: 'person', ends_at: (await now()) + DAY, body: { likes: 'coffee' } });
    await advance(1);
    const r = await caller(svc, t, { purpose: 'routine:keep', job: c.job, start: { timeout_ms: 300 * DAY } });
    // As for any absent record: expect 0 (a put naming the old version is stale at 0).
    expect((await r.rec({ op: 'put', scope: 'agent:scribe', record_key: 'pref', body: {}, expect: 2, subject_kind: 'person' })).body).toMatchObject({
      error: 'stale',
      current: 0,
    });
    expect(await put(r, 'pref', 0, { subject_kind: 'person', body: { likes: 'water' } })).toMatchObject({ version: 1 });
    const history = (await r.rec({ op: 'history', scope: 'agent:scribe', record_key: 'pref' })).body.records;
    expect(history.map((x: any) => [x.version, x.body])).toEqual([[1, { likes: 'water' }]]);
    expect(await removals(t)).toEqual(['pref']);
    expect(await run(t)).toMatchObject({ person_deleted: 0 });
  });

  it('under a legal hold, is refused (held) and the ended record stays kept and unread', async () => {
    const { t, c } = await setup();
    await put(c, 'pref', 0, { subject_kind: 'person', ends_at: (await now()) + DAY });
    await svc.admin('POST', `/v1/tenants/${t}/holds`, { selector: { record: 'pref' }, reason: 'audit' });
    await advance(1);
    const r = await caller(svc, t, { purpose: 'routine:keep', job: c.job, start: { timeout_ms: 300 * DAY } });
    const before = await svc.lastPosition();
    const refused = await r.rec({ op: 'put', scope: 'agent:scribe', record_key: 'pref', body: {}, expect: 0, subject_kind: 'person' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'held', reason: expect.any(String) });
    expect(await svc.lastPosition()).toBe(before);
    expect(await removals(t)).toEqual([]);
    expect(await keysHeld(t, 'pref')).toBe(1);
  });
});

describe('retention decides like a command', () => {
  it("a put that extends a record's end while retention runs is never undone by a removal", async () => {
    const { t, c } = await setup();
    await put(c, 'doc', 0, { ends_at: (await now()) + DAY });
    await advance(12);
    const writer = await caller(svc, t, { purpose: 'routine:keep', job: c.job, start: { timeout_ms: 300 * DAY } });
    // Retention reads its candidates from the read model; the put lands right after that read,
    // so the candidates it decides on are stale (a lagging read model, made deterministic).
    const db = postgresReadModelStore(svc.pool);
    let raced = false;
    const lagging: Sql = {
      async query(text: string, params?: unknown[]) {
        const result = await db.query(text, params as unknown[]);
        if (!raced && /FROM rm_records r WHERE/.test(text)) {
          raced = true;
          await put(writer, 'doc', 1, { ends_at: (await now()) + 30 * DAY });
        }
        return result;
      },
    } as Sql;
    const keystore = await postgresKeystore(svc.pool, svc.masterKey);
    const compliance = complianceCommands({
      store: svc.store,
      db: lagging,
      keystore,
      clock: svc.clock,
      receipts: receiptSigner(newAuditKey()),
      settle: (p) => svc.runner.waitFor(p),
      records: recordCommands({ store: svc.store, db, sealer: keystore, clock: svc.clock }),
    } as Parameters<typeof complianceCommands>[0]);
    const result = await compliance.retention(t);
    expect(raced).toBe(true);
    expect(result).toMatchObject({ _tag: 'Right', right: { removed: 0 } });
    expect(await removals(t)).toEqual([]);
    expect((await writer.rec({ op: 'get', scope: 'agent:scribe', record_key: 'doc' })).body.record).toMatchObject({ version: 2, body: { key: 'doc' } });
    expect(await keysHeld(t, 'doc')).toBeGreaterThan(0);
  });

  it('holds still win: a held record past its retention point is deferred, not removed', async () => {
    const { t, c } = await setup();
    await put(c, 'held', 0, { ends_at: (await now()) + DAY });
    await put(c, 'free', 0, { ends_at: (await now()) + DAY });
    await svc.admin('POST', `/v1/tenants/${t}/holds`, { selector: { record: 'held' }, reason: 'audit' });
    await advance(12);
    expect(await run(t)).toMatchObject({ removed: 1, deferred: 1 });
    expect(await removals(t)).toEqual(['free']);
  });
});
