import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over the call-context cache (issue 14's write path): a ticket's later
 * requests admitted from memory on one instance while another instance changes the call.
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

const mint = async (svc: TestService, job: string, step: number) => {
  const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${job}/calls`, { function: 'save', step });
  expect(minted.status).toBe(201);
  return minted.body._meta['oz0/records'].ticket as string;
};

describe('the call count across two instances', () => {
  it('answers exactly 64 of 100 parallel requests on one call spread over A and B', async () => {
    const c = await caller(a, 'acme');
    await warm(a, c);
    await warm(b, c);
    const sent = Array.from({ length: 96 }, (_, i) =>
      records(i % 2 === 0 ? a : b, c.ticket, { op: 'put', scope: 'project:count', record_key: `k${i}`, body: { i }, expect: 0 }),
    );
    const answers = await Promise.all(sent);
    const answered = answers.filter((r) => r.status === 200).length;
    const refused = answers.filter((r) => r.body.error === 'requests').length;
    expect(answered + 4).toBe(64);
    expect(refused).toBe(96 - answered);
    const { rows } = await a.pool.query<{ n: string }>(`SELECT count(*) AS n FROM rm_records WHERE tenant = 'acme' AND scope = 'project:count'`);
    expect(Number(rows[0]!.n)).toBe(answered);
  });
});

describe('request-key idempotency across instances', () => {
  it("a step retried on B (its put from the cache) answers the first try's write on A, once", async () => {
    const c = await caller(a, 'acme', { step: 1 });
    await warm(a, c);
    const x = await c.rec({ op: 'put', scope: 'project:idem', record_key: 'left', body: { from: 'a' }, expect: 0 });
    expect(x.status).toBe(200);
    const retry = await mint(b, c.job, 1);
    await warm(b, { ...c, ticket: retry });
    const y = await records(b, retry, { op: 'put', scope: 'project:idem', record_key: 'right', body: { from: 'b' }, expect: 0 });
    expect(y).toEqual(x);
    const { rows } = await a.pool.query(`SELECT key FROM rm_records WHERE tenant = 'acme' AND scope = 'project:idem'`);
    expect(rows).toHaveLength(1);
  });

  it('a first try on A racing its retry on B never writes twice', async () => {
    const twice: string[] = [];
    for (let i = 0; i < 6; i++) {
      const c = await caller(a, 'acme', { step: 1 });
      await warm(a, c);
      const scope = `project:race${i}`;
      const [x, y] = await Promise.all([
        c.rec({ op: 'put', scope, record_key: 'left', body: {}, expect: 0 }),
        (async () => {
          const retry = await mint(b, c.job, 1);
          await warm(b, { ...c, ticket: retry });
          return records(b, retry, { op: 'put', scope, record_key: 'right', body: {}, expect: 0 });
        })(),
      ]);
      expect(y.status).toBe(200);
      if (x.status === 200) expect(y).toEqual(x);
      // The retry ended the original call: a dead ticket (SPEC check 1), not a fenced job.
      else expect(x).toMatchObject({ status: 401, body: { error: 'ticket' } });
      const { rows } = await a.pool.query(`SELECT key FROM rm_records WHERE tenant = 'acme' AND scope = $1`, [scope]);
      if (rows.length !== 1) twice.push(scope);
    }
    expect(twice).toEqual([]);
  });
});

describe('a label wall crossed through the cache', () => {
  beforeAll(async () => {
    await a.admin('POST', '/v1/tenants', { id: 'walls', settings: { label_walls: [['red', 'blue']] } });
    await a.admin('POST', '/v1/tenants/walls/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
    const red = await caller(a, 'walls', { labels: ['red'] });
    expect((await red.rec({ op: 'put', scope: 'tenant', record_key: 'red-rec', body: { side: 'red' }, expect: 0 })).status).toBe(200);
    const blue = await caller(a, 'walls', { labels: ['blue'] });
    expect((await blue.rec({ op: 'put', scope: 'tenant', record_key: 'blue-rec', body: { side: 'blue' }, expect: 0 })).status).toBe(200);
  });
  const get = (svc: TestService, ticket: string, key: string) => records(svc, ticket, { op: 'get', scope: 'tenant', record_key: key });

  it('a job that read red on B reads no blue on A from a warm ticket', async () => {
    const c1 = await caller(a, 'walls');
    const minted = await a.admin('POST', `/v1/tenants/walls/jobs/${c1.job}/calls`, { function: 'save' });
    const c2: string = minted.body._meta['oz0/records'].ticket;
    await warm(a, c1);
    expect((await get(b, c2, 'red-rec')).body.record).toBeDefined();
    const blue = await get(a, c1.ticket, 'blue-rec');
    expect(blue.status).toBe(200);
    expect(blue.body.record).toBeUndefined();
  });

  it('a put on A from a warm ticket after the job read red on B carries red', async () => {
    const c1 = await caller(a, 'walls');
    const minted = await a.admin('POST', `/v1/tenants/walls/jobs/${c1.job}/calls`, { function: 'save' });
    const c2: string = minted.body._meta['oz0/records'].ticket;
    await warm(a, c1);
    expect((await get(b, c2, 'red-rec')).body.record).toBeDefined();
    const key = `leak-${c1.job}`;
    expect((await c1.rec({ op: 'put', scope: 'tenant', record_key: key, body: { copied: 'red' }, expect: 0 })).status).toBe(200);
    const blue = await caller(b, 'walls', { labels: ['blue'] });
    expect((await get(b, blue.ticket, key)).body.record).toBeUndefined();
  });

  it('warm reads of both sides at once on A and B never show one job both sides', async () => {
    const breaches: string[] = [];
    for (let i = 0; i < 8; i++) {
      const c1 = await caller(a, 'walls');
      const minted = await a.admin('POST', `/v1/tenants/walls/jobs/${c1.job}/calls`, { function: 'save' });
      const c2 = { ...c1, ticket: minted.body._meta['oz0/records'].ticket as string };
      await warm(a, c1);
      await warm(b, c2);
      const [red, blue] = await Promise.all([get(a, c1.ticket, 'red-rec'), get(b, c2.ticket, 'blue-rec')]);
      if (red.body.record && blue.body.record) breaches.push(c1.job);
    }
    expect(breaches).toEqual([]);
  });
});

describe('reads answered from the cache are audited before the answer', () => {
  it('every cached get that showed a record has its RecordsRead committed when answered', async () => {
    const c = await caller(a, 'acme');
    expect((await c.rec({ op: 'put', scope: 'project:aud', record_key: 'r', body: { x: 1 }, expect: 0 })).status).toBe(200);
    await warm(a, c);
    await warm(b, c);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => records(i % 2 ? a : b, c.ticket, { op: 'get', scope: 'project:aud', record_key: 'r' })),
    );
    const shown = answers.filter((r) => r.status === 200 && r.body.record).length;
    expect(shown).toBeGreaterThan(0);
    const { rows } = await a.pool.query<{ n: string }>(`SELECT count(*) AS n FROM custodian_events WHERE stream = $1 AND type = 'RecordsRead'`, [
      `reads:acme:${c.job}`,
    ]);
    expect(Number(rows[0]!.n)).toBeGreaterThanOrEqual(shown);
  });
});

describe('a kill on B refuses a ticket warm on A, for every op', () => {
  const ops = [
    { op: 'put', scope: 'project:kill', record_key: 'n', body: {}, expect: 0 },
    { op: 'get', scope: 'project:kill', record_key: 'seed' },
    { op: 'history', scope: 'project:kill', record_key: 'seed' },
    { op: 'list' },
  ];
  it.each(ops)('$op', async (body) => {
    const agent = `k${Math.random().toString(36).slice(2, 8)}`;
    await a.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe', 'helper', agent] });
    const c = await caller(a, 'acme', { agent });
    expect((await c.rec({ op: 'put', scope: 'project:kill', record_key: 'seed', body: {}, expect: 0 })).status).toBeLessThan(500);
    await warm(a, c);
    const before = await a.lastPosition();
    const killed = await b.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'kill_agent', agent: `notes/${agent}` }] });
    expect(killed.status).toBeLessThan(300);
    const after = await a.lastPosition();
    const onA = await records(a, c.ticket, body);
    const onB = await records(b, c.ticket, body);
    expect(onA.status).toBeGreaterThanOrEqual(400);
    expect(onA.status).toBeLessThan(500);
    expect(onA).toEqual(onB);
    expect(await a.lastPosition()).toBe(after);
    expect(after).toBeGreaterThan(before);
  });
});
