import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purposeOfInput } from '../../../domain/jobs/purpose.ts';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

const DAY = 86_400_000;
let svc: TestService;
let w: Caller;
let now0: number;
const keys = (r: { body: any }) => r.body.records.map((x: any) => x.key);

beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save', 'boot'], agents: ['scribe', 'other'], startup: 'boot' });
  now0 = (await svc.admin('POST', '/v1/_clock', { advance_ms: 0 })).body.now_ms;
  w = await caller(svc, 'acme', { input: 'lists', start: { timeout_ms: 30 * DAY } });
  const put = async (scope: string, key: string, extra: Record<string, unknown> = {}, expect = 0) => {
    const r = await w.rec({ op: 'put', scope, record_key: key, body: { key }, expect, ...extra });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    await svc.admin('POST', '/v1/_clock', { advance_ms: 10 });
  };
  await put('project:a', 'apple', { kind: 'fruit' });
  await put('project:a', 'avocado', { kind: 'fruit', dedupe: 'green' });
  await put('project:a', 'beet', { kind: 'root' });
  await put('project:b', 'banana', { kind: 'fruit' });
  await put('project:a', 'closed', {});
  await put('project:a', 'closed', { closed: true }, 1);
  await put('project:a', 'gone', {});
  await put('project:a', 'gone', { state: 'deleted' }, 1);
  await put('project:a', 'brief', { ends_at: now0 + DAY });
  await put('project:a', 'draft', { state: 'published' });
  await put('project:a', 'draft', { state: 'draft' }, 1);
  // More calls: one call makes at most 64 requests.
  w = await caller(svc, 'acme', { input: 'lists', job: w.job, start: { timeout_ms: 30 * DAY } });
  await svc.admin('POST', '/v1/_clock', { advance_ms: DAY });
});
afterAll(async () => svc?.stop());

describe('list options', () => {
  it('lists live records by scope then key by default, the newest version of each', async () => {
    const r = await w.rec({ op: 'list' });
    expect(r.status).toBe(200);
    expect(r.body.records.map((x: any) => `${x.scope}/${x.key}`)).toEqual([
      'project:a/apple',
      'project:a/avocado',
      'project:a/beet',
      'project:a/draft',
      'project:b/banana',
    ]);
    expect(r.body.records.find((x: any) => x.key === 'draft')).toMatchObject({ version: 2, state: 'draft' });
    expect(r.body).toMatchObject({ withheld: 0, more: false, job_purpose: purposeOfInput('lists') });
  });

  it('filters by scopes, kinds, states, prefix, since and after', async () => {
    expect(keys(await w.rec({ op: 'list', list: { scopes: ['project:b'] } }))).toEqual(['banana']);
    expect(keys(await w.rec({ op: 'list', list: { kinds: ['fruit'] } }))).toEqual(['apple', 'avocado', 'banana']);
    expect(keys(await w.rec({ op: 'list', list: { states: ['draft'] } }))).toEqual(['draft']);
    expect(keys(await w.rec({ op: 'list', list: { prefix: 'a' } }))).toEqual(['apple', 'avocado']);
    expect(keys(await w.rec({ op: 'list', list: { after: 'b', scopes: ['project:a'] } }))).toEqual(['beet', 'draft']);
    const avocado = (await w.rec({ op: 'get', scope: 'project:a', record_key: 'avocado' })).body.record;
    expect(keys(await w.rec({ op: 'list', list: { since: avocado.created_ms, scopes: ['project:a'] } }))).toEqual(['avocado', 'beet', 'draft']);
  });

  it('includes ended and closed records with ended, deleted ones with deleted', async () => {
    expect(keys(await w.rec({ op: 'list', list: { scopes: ['project:a'], ended: true } }))).toEqual(['apple', 'avocado', 'beet', 'brief', 'closed', 'draft']);
    expect(keys(await w.rec({ op: 'list', list: { scopes: ['project:a'], deleted: true } }))).toEqual(['apple', 'avocado', 'beet', 'draft', 'gone']);
  });

  it('orders by created, oldest or newest first', async () => {
    expect(keys(await w.rec({ op: 'list', list: { order: 'created' } }))).toEqual(['apple', 'avocado', 'beet', 'banana', 'draft']);
    expect(keys(await w.rec({ op: 'list', list: { order: '-created' } }))).toEqual(['draft', 'banana', 'beet', 'avocado', 'apple']);
  });

  it('pages with limit and cursor in every order', async () => {
    for (const order of ['key', 'created', '-created'] as const) {
      const all = keys(await w.rec({ op: 'list', list: { order } }));
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const r = await w.rec({ op: 'list', list: { order, limit: 2, ...(cursor ? { cursor } : {}) } });
        seen.push(...keys(r));
        if (!r.body.more) break;
        cursor = r.body.next;
      }
      expect(seen).toEqual(all);
    }
  });

  it('answers next only when more is true, fitted or not', async () => {
    const first = await w.rec({ op: 'list', list: { limit: 2 } });
    expect(first.body).toMatchObject({ more: true, next: expect.any(String) });
    const last = await w.rec({ op: 'list', list: { limit: 200 } });
    expect(last.body.more).toBe(false);
    expect(last.body).not.toHaveProperty('next');
    const fitted = await w.rec({ op: 'list', list: { limit: 200 }, view: 'summary', budget: 5_000 });
    expect(fitted.body).toMatchObject({ more: false, fit: expect.any(Object) });
    expect(fitted.body).not.toHaveProperty('next');
    const cut = await w.rec({ op: 'list', list: { limit: 200 }, view: 'full', budget: 1 });
    expect(cut.body).toMatchObject({ more: true, next: expect.any(String) });
  });

  it('finds records by dedupe text in one scope', async () => {
    expect(keys(await w.rec({ op: 'list', list: { scopes: ['project:a'], dedupe: 'green' } }))).toEqual(['avocado']);
    expect(keys(await w.rec({ op: 'list', list: { scopes: ['project:a'], dedupe: 'blue' } }))).toEqual([]);
  });

  it('with newest_in and states, shows the version in force while a newer one waits', async () => {
    const r = await w.rec({ op: 'list', list: { states: ['published'], newest_in: true } });
    expect(r.body.records.map((x: any) => [x.key, x.version, x.state])).toEqual([['draft', 1, 'published']]);
  });
});

describe('visibility', () => {
  it('shows records of the job purpose, of compatible purposes, and purpose-less work records', async () => {
    const t = 'vis';
    await svc.admin('POST', '/v1/tenants', { id: t });
    await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe', 'other'] });
    const a = await caller(svc, t, { input: 'A' });
    const b = await caller(svc, t, { input: 'B' });
    const none = await caller(svc, t, { purpose: '' });
    await a.rec({ op: 'put', scope: 'tenant', record_key: 'of-a', body: {}, expect: 0 });
    await b.rec({ op: 'put', scope: 'tenant', record_key: 'of-b', body: {}, expect: 0 });
    await none.rec({ op: 'put', scope: 'tenant', record_key: 'of-none', body: {}, expect: 0 });
    await a.rec({ op: 'put', scope: 'agent:scribe', record_key: 'private', body: {}, expect: 0 });

    expect(keys(await a.rec({ op: 'list' }))).toEqual(['private', 'of-a', 'of-none']);
    expect(keys(await none.rec({ op: 'list' }))).toEqual(['of-none']);
    const other = await caller(svc, t, { input: 'A', agent: 'other' });
    expect(keys(await other.rec({ op: 'list' }))).toEqual(['of-a', 'of-none']);
    expect((await b.rec({ op: 'get', scope: 'tenant', record_key: 'of-a' })).body.record).toBeUndefined();

    await svc.admin('PATCH', `/v1/tenants/${t}`, { compatible_purposes: { [purposeOfInput('B')]: [purposeOfInput('A')] } });
    const b2 = await caller(svc, t, { input: 'B' });
    const listed = (await b2.rec({ op: 'list' })).body.records;
    expect(listed.map((x: any) => [x.key, x.writable])).toEqual([
      ['private', false],
      ['of-a', false],
      ['of-b', true],
      ['of-none', false],
    ]);
  });
});

describe('labels, walls and the read audit', () => {
  it('withholds records across a wall, counts them, and the cursor moves past them', async () => {
    const t = 'walls';
    await svc.admin('POST', '/v1/tenants', { id: t, settings: { label_walls: [['red', 'blue']] } });
    await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] });
    const red = await caller(svc, t, { input: 'p', labels: ['red'] });
    const blue = await caller(svc, t, { input: 'p', labels: ['blue'] });
    const plain = await caller(svc, t, { input: 'p' });
    for (const k of ['a1', 'a2', 'a3']) await blue.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 0 });
    await plain.rec({ op: 'put', scope: 'tenant', record_key: 'b1', body: {}, expect: 0 });

    const page = await red.rec({ op: 'list', list: { limit: 1 } });
    expect(page.body).toMatchObject({ records: [{ key: 'b1' }], withheld: 3 });
    const first = await red.rec({ op: 'list', list: { limit: 2 } });
    expect(first.body).toMatchObject({ withheld: 3, more: false });
    expect(keys(first)).toEqual(['b1']);

    // A wall also stands between two records of one answer: the first shown decides.
    const reader = await caller(svc, t, { input: 'p' });
    await red.rec({ op: 'put', scope: 'tenant', record_key: 'c-red', body: {}, expect: 0 });
    const mixed = await reader.rec({ op: 'list' });
    expect(keys(mixed)).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect(mixed.body.withheld).toBe(1);
    // …and the job now carries blue: the red record stays withheld on later reads too.
    const job = await svc.admin('GET', `/v1/tenants/${t}/jobs/${reader.job}`);
    expect(job.body.job.labels).toEqual(['blue']);
    expect((await reader.rec({ op: 'get', scope: 'tenant', record_key: 'c-red' })).body.record).toBeUndefined();
  });

  it("a write keeps the labels its job has read; reading another plugin agent's record taints with memory", async () => {
    const t = 'taint';
    await svc.admin('POST', '/v1/tenants', { id: t, settings: { grants: { mail: ['plugin:notes'] } } });
    await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] });
    await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'mail', functions: ['send'], agents: ['postman'] });
    const notes = await caller(svc, t, { input: 'p', labels: ['secret'] });
    await notes.rec({ op: 'put', scope: 'tenant', record_key: 'n1', body: {}, expect: 0 });
    // mail's agent calls notes' function under its grant: it reads notes' records.
    const mail = await caller(svc, t, { input: 'p', agent: 'postman', plugin: 'mail', fn: 'notes/save' });
    const got = await mail.rec({ op: 'get', scope: 'tenant', record_key: 'n1' });
    expect(got.body.record.labels).toEqual(['secret']);
    const job = await svc.admin('GET', `/v1/tenants/${t}/jobs/${mail.job}`);
    expect(job.body.job.labels).toEqual(['memory', 'secret']);
    expect((await mail.rec({ op: 'put', scope: 'tenant', record_key: 'm1', body: {}, expect: 0 })).body).toMatchObject({ version: 1 });
    expect((await mail.rec({ op: 'get', scope: 'tenant', record_key: 'm1' })).body.record.labels).toEqual(['memory', 'secret']);
  });

  it('audits every read with the versions it returned before answering', async () => {
    const r = await w.rec({ op: 'history', scope: 'project:a', record_key: 'draft' });
    expect(r.body.records).toHaveLength(2);
    const { rows } = await svc.pool.query(
      `SELECT data FROM custodian_events WHERE type = 'RecordsRead' AND data->>'job' = $1 AND data->>'op' = 'history' ORDER BY position DESC LIMIT 1`,
      [w.job],
    );
    expect(rows[0].data).toMatchObject({
      call: w.call,
      op: 'history',
      startup: false,
      records: [
        { scope: 'project:a', key: 'draft', version: 2 },
        { scope: 'project:a', key: 'draft', version: 1 },
      ],
    });
  });
});

describe('start-up reads', () => {
  it('never return ended, closed or deleted records, and are audited as start-up reads', async () => {
    const s = await caller(svc, 'acme', { input: 'lists', fn: 'boot', startup: true });
    const r = await s.rec({ op: 'list', list: { ended: true, deleted: true, scopes: ['project:a'] } });
    expect(keys(r)).toEqual(['apple', 'avocado', 'beet', 'draft']);
    expect((await s.rec({ op: 'get', scope: 'project:a', record_key: 'closed' })).body.record).toBeUndefined();
    expect((await s.rec({ op: 'history', scope: 'project:a', record_key: 'gone' })).body.records).toEqual([]);
    expect((await s.rec({ op: 'get', scope: 'project:a', record_key: 'brief' })).body.record).toBeUndefined();
    const { rows } = await svc.pool.query(
      `SELECT count(*)::int AS n FROM custodian_events WHERE type = 'RecordsRead' AND data->>'call' = $1 AND (data->>'startup')::boolean`,
      [s.call],
    );
    expect(rows[0].n).toBe(4);
  });
});
