import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purposeOfInput } from '../../../domain/jobs/purpose.ts';
import { caller, records } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

const DAY = 86_400_000;
let svc: TestService;
let n = 0;
const key = () => `k${++n}`;

beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  for (const t of ['acme', 'capped', 'people']) await svc.admin('POST', '/v1/tenants', { id: t });
  for (const t of ['acme', 'capped', 'people'])
    await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save', 'boot'], agents: ['scribe', 'other'], startup: 'boot' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'narrow', functions: ['save'], agents: ['bot'], scopes: ['tenant'] });
});
afterAll(async () => svc?.stop());

/** A refused put writes nothing: the log does not move. */
const refusedWithoutWrite = async (attempt: () => Promise<{ status: number; body: any }>) => {
  const head = await svc.lastPosition();
  const r = await attempt();
  expect(await svc.lastPosition()).toBe(head);
  return r;
};

describe('check 1: ticket and fence', () => {
  it('refuses a missing, unknown or dead ticket with 401 ticket', async () => {
    const none = await fetch(`${svc.url}/v1/records`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"op":"list"}' });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: 'ticket', message: expect.any(String), job_purpose: '' });
    expect(await records(svc, 'not-a-ticket', { op: 'list' })).toEqual({
      status: 401,
      body: { error: 'ticket', message: expect.any(String), job_purpose: '' },
    });
    const c = await caller(svc, 'acme');
    await svc.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls/${c.call}/end`);
    expect((await c.rec({ op: 'list' })).status).toBe(401);
    const d = await caller(svc, 'acme');
    await svc.admin('POST', `/v1/tenants/acme/jobs/${d.job}/end`);
    expect((await d.rec({ op: 'list' })).body.error).toBe('ticket');
  });

  it('checks the ticket before the body: bad JSON with a bad ticket is a ticket refusal', async () => {
    expect((await records(svc, 'nope', '{"op": ')).body.error).toBe('ticket');
  });

  it('fences a job past its expiry with 403 revoked', async () => {
    const started = await svc.admin('POST', '/v1/tenants/acme/jobs', { id: 'short', agent: 'scribe', plugin: 'notes', subject: 's', timeout_ms: 60_000 });
    expect(started.status).toBe(201);
    const minted = await svc.admin('POST', '/v1/tenants/acme/jobs/short/calls', { function: 'save' });
    const ticket = minted.body._meta['oz0/records'].ticket;
    expect((await records(svc, ticket, { op: 'list' })).status).toBe(200);
    await svc.admin('POST', '/v1/_clock', { advance_ms: 120_000 });
    expect(await records(svc, ticket, { op: 'list' })).toEqual({ status: 403, body: { error: 'revoked', message: expect.any(String), job_purpose: '' } });
  });
});

describe('check 2: at most 64 requests per call', () => {
  it('answers the 65th request with 429, refused requests counting too', async () => {
    const c = await caller(svc, 'acme');
    for (let i = 0; i < 32; i++) expect((await c.rec({ op: 'get', scope: 'tenant', record_key: 'x' })).status).toBe(200);
    for (let i = 0; i < 32; i++) expect((await c.rec({ op: 'nope' })).status).toBe(400);
    const over = await c.rec({ op: 'get', scope: 'tenant', record_key: 'x' });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: 'requests', message: expect.any(String), limit: 64, job_purpose: purposeOfInput('default input') });
  });

  it('counts exactly under parallel requests', async () => {
    const c = await caller(svc, 'acme');
    const answers = await Promise.all(Array.from({ length: 80 }, () => c.rec({ op: 'get', scope: 'tenant', record_key: 'x' })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(64);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(16);
  });
});

describe('check 3: shape', () => {
  const cases: [string, unknown, string][] = [
    ['malformed JSON', '{"op": "put",', 'body'],
    ['an unknown op', { op: 'erase' }, 'op'],
    ['an unknown field', { op: 'get', scope: 'tenant', record_key: 'a', extra: 1 }, 'extra'],
    ['a key with a space', { op: 'put', scope: 'tenant', record_key: 'a b', body: {}, expect: 0 }, 'record_key'],
    ['an empty key', { op: 'put', scope: 'tenant', record_key: '', body: {}, expect: 0 }, 'record_key'],
    ['a key of 201 characters', { op: 'put', scope: 'tenant', record_key: 'k'.repeat(201), body: {}, expect: 0 }, 'record_key'],
    ['a body that is an array', { op: 'put', scope: 'tenant', record_key: 'a', body: [1], expect: 0 }, 'body'],
    ['a body that is a string', { op: 'put', scope: 'tenant', record_key: 'a', body: 'text', expect: 0 }, 'body'],
    ['a body over 16 KiB', { op: 'put', scope: 'tenant', record_key: 'a', body: { t: 'x'.repeat(16 * 1024) }, expect: 0 }, 'body'],
    ['a negative expect', { op: 'put', scope: 'tenant', record_key: 'a', body: {}, expect: -1 }, 'expect'],
    ['a fractional expect', { op: 'put', scope: 'tenant', record_key: 'a', body: {}, expect: 1.5 }, 'expect'],
    ['a missing expect', { op: 'put', scope: 'tenant', record_key: 'a', body: {} }, 'expect'],
    ['a bad scope', { op: 'put', scope: 'galaxy', record_key: 'a', body: {}, expect: 0 }, 'scope'],
    ['a list limit over 200', { op: 'list', list: { limit: 201 } }, 'list.limit'],
    ['dedupe over two scopes', { op: 'list', list: { dedupe: 'x', scopes: ['tenant', 'project:a'] } }, 'list.dedupe'],
  ];
  it.each(cases)('refuses %s with 400 invalid naming the field', async (_name, body, field) => {
    const c = await caller(svc, 'acme');
    const r = await refusedWithoutWrite(() => c.rec(body));
    expect(r.status).toBe(400);
    // An unknown field also names the fields allowed there.
    const { allowed, ...rest } = r.body;
    expect(allowed === undefined || Array.isArray(allowed)).toBe(true);
    expect(rest).toEqual({ error: 'invalid', message: expect.any(String), field, reason: expect.any(String), job_purpose: purposeOfInput('default input') });
  });

  it('takes a body of exactly 16 KiB', async () => {
    const c = await caller(svc, 'acme');
    const text = 'x'.repeat(16 * 1024 - '{"t":""}'.length);
    expect((await c.rec({ op: 'put', scope: 'tenant', record_key: key(), body: { t: text }, expect: 0 })).body.version).toBe(1);
  });
});

describe('check 4: scope', () => {
  it('refuses a scope the plugin did not declare', async () => {
    const c = await caller(svc, 'acme', { agent: 'bot', plugin: 'narrow' });
    expect(await refusedWithoutWrite(() => c.rec({ op: 'put', scope: 'project:x', record_key: 'a', body: {}, expect: 0 }))).toMatchObject({
      status: 403,
      body: { error: 'scope' },
    });
    expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'a', body: {}, expect: 0 })).status).toBe(200);
  });

  it('keeps agent:<name> to jobs of that agent', async () => {
    const c = await caller(svc, 'acme');
    expect((await c.rec({ op: 'put', scope: 'agent:scribe', record_key: 'mine', body: {}, expect: 0 })).status).toBe(200);
    expect((await c.rec({ op: 'put', scope: 'agent:other', record_key: 'theirs', body: {}, expect: 0 })).body.error).toBe('scope');
    const other = await caller(svc, 'acme', { agent: 'other' });
    expect((await other.rec({ op: 'get', scope: 'agent:scribe', record_key: 'mine' })).body.record).toBeUndefined();
  });
});

describe('check 5: idempotent retries', () => {
  it('answers a retried step with the first write, even when the retry names another key', async () => {
    const first = await caller(svc, 'acme', { step: 3 });
    const k = key();
    const wrote = await first.rec({ op: 'put', scope: 'tenant', record_key: k, body: { a: 1 }, expect: 0 });
    expect(wrote.body.version).toBe(1);
    // The runtime retries the step: a new ticket, the same idempotency key, the count from 0.
    const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${first.job}/calls`, { function: 'save', step: 3 });
    expect(minted.body._meta['oz0/idempotency_key']).toBe(first.idempotencyKey);
    const retryTicket = minted.body._meta['oz0/records'].ticket;
    const again = await refusedWithoutWrite(() =>
      records(svc, retryTicket, { op: 'put', scope: 'project:elsewhere', record_key: 'other-key', body: { a: 2 }, expect: 0 }),
    );
    expect(again.body).toMatchObject({ version: 1, scope: 'tenant', key: k });
    // The next request of the retry is a new one, and writes.
    expect((await records(svc, retryTicket, { op: 'put', scope: 'tenant', record_key: k, body: { a: 3 }, expect: 1 })).body.version).toBe(2);
  });
});

describe('checks 6–8: stale, purpose, closed', () => {
  it('refuses an expect that is not the newest version with 409 stale and the current version', async () => {
    const c = await caller(svc, 'acme');
    const k = key();
    await c.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 0 });
    expect(await refusedWithoutWrite(() => c.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 0 }))).toMatchObject({
      status: 409,
      body: { error: 'stale', current: 1 },
    });
    expect((await c.rec({ op: 'put', scope: 'tenant', record_key: key(), body: {}, expect: 3 })).body).toMatchObject({ error: 'stale', current: 0 });
  });

  it('refuses a write under another purpose, and keeps purpose-less work records to purpose-less jobs', async () => {
    const a = await caller(svc, 'acme', { input: 'purpose A' });
    const b = await caller(svc, 'acme', { input: 'purpose B' });
    const none = await caller(svc, 'acme', { purpose: '' });
    const k = key();
    await a.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 0 });
    expect(await refusedWithoutWrite(() => b.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 1 }))).toMatchObject({
      status: 403,
      body: { error: 'purpose' },
    });
    const shared = key();
    await none.rec({ op: 'put', scope: 'tenant', record_key: shared, body: {}, expect: 0 });
    expect((await a.rec({ op: 'put', scope: 'tenant', record_key: shared, body: {}, expect: 1 })).body.error).toBe('purpose');
    const none2 = await caller(svc, 'acme', { purpose: '' });
    expect((await none2.rec({ op: 'put', scope: 'tenant', record_key: shared, body: {}, expect: 1 })).body.version).toBe(2);
  });

  it('refuses a closed first version and closes later ones', async () => {
    const c = await caller(svc, 'acme');
    const k = key();
    expect(await refusedWithoutWrite(() => c.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 0, closed: true }))).toMatchObject({
      status: 400,
      body: { error: 'closed' },
    });
    await c.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 0 });
    expect((await c.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 1, closed: true })).body.version).toBe(2);
    expect((await c.rec({ op: 'get', scope: 'tenant', record_key: k })).body.record.closed).toBe(true);
  });
});

describe('check 9: people', () => {
  it('refuses person writes while person_memory is off, saying what the tenant must change', async () => {
    const c = await caller(svc, 'people', { input: 'remember prefs' });
    const r = await refusedWithoutWrite(() => c.rec({ op: 'put', scope: 'agent:scribe', record_key: 'pref', body: {}, expect: 0, subject_kind: 'person' }));
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('person_off');
    expect(r.body.reason).toContain('person_memory');
    expect(r.body.reason).toContain(purposeOfInput('remember prefs'));
  });

  it('keeps person records to the agent scope or shared scopes, and makes a data subject job write person records', async () => {
    const purpose = purposeOfInput('remember prefs');
    await svc.admin('PATCH', '/v1/tenants/people', { person_memory: [{ agent: 'scribe', purpose }] });
    const c = await caller(svc, 'people', { input: 'remember prefs' });
    const scoped = await refusedWithoutWrite(() => c.rec({ op: 'put', scope: 'tenant', record_key: 'p1', body: {}, expect: 0, subject_kind: 'person' }));
    expect(scoped).toMatchObject({ status: 403, body: { error: 'person_scope' } });
    expect(scoped.body.reason).toContain('person_shared_scopes');
    expect((await c.rec({ op: 'put', scope: 'agent:scribe', record_key: 'p1', body: {}, expect: 0, subject_kind: 'person' })).body.version).toBe(1);

    await svc.admin('PATCH', '/v1/tenants/people', { person_shared_scopes: ['project:crm'] });
    const d = await caller(svc, 'people', { input: 'remember prefs', data_subject: 'user:ada' });
    expect((await d.rec({ op: 'put', scope: 'project:crm', record_key: 'ada', body: { likes: 'tea' }, expect: 0 })).body.version).toBe(1);
    expect((await d.rec({ op: 'get', scope: 'project:crm', record_key: 'ada' })).body.record.subject_kind).toBe('person');
    // Once person, always person: a later "work" version stays person.
    const e = await caller(svc, 'people', { input: 'remember prefs' });
    await e.rec({ op: 'put', scope: 'project:crm', record_key: 'ada', body: {}, expect: 1, subject_kind: 'work' });
    expect((await e.rec({ op: 'get', scope: 'project:crm', record_key: 'ada' })).body.record).toMatchObject({ version: 2, subject_kind: 'person' });
    // A data subject's job cannot write work records outside the allowed scopes.
    expect((await d.rec({ op: 'put', scope: 'tenant', record_key: 'x', body: {}, expect: 0 })).body.error).toBe('person_scope');
  });
});

describe('check 10: ends', () => {
  it('defaults, refuses past and too-late ends, and lowers a carried-forward end to the longest', async () => {
    const c = await caller(svc, 'acme');
    const now = (await svc.admin('POST', '/v1/_clock', { advance_ms: 0 })).body.now_ms as number;
    const k = key();
    expect(await refusedWithoutWrite(() => c.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 0, ends_at: now - 1 }))).toMatchObject({
      status: 400,
      body: { error: 'ends_at', max_days: 365 },
    });
    expect((await c.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 0, ends_at: now + 366 * DAY })).body).toMatchObject({
      error: 'ends_at',
      max_days: 365,
    });
    const end = now + 300 * DAY;
    expect((await c.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 0, ends_at: end })).body.version).toBe(1);
    expect((await c.rec({ op: 'get', scope: 'tenant', record_key: k })).body.record.ends_at).toBe(end);

    await svc.admin('PATCH', '/v1/tenants/acme', { max_end_days: 30, default_end_days: 10 });
    try {
      const c2 = await caller(svc, 'acme');
      expect((await c2.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 1, ends_at: end + 1 })).body).toMatchObject({
        error: 'ends_at',
        max_days: 30,
      });
      expect((await c2.rec({ op: 'put', scope: 'tenant', record_key: k, body: {}, expect: 1, ends_at: end })).body.version).toBe(2);
      // Lowered to the longest end from the version's own time, not read against the wall clock.
      const lowered = (await c2.rec({ op: 'get', scope: 'tenant', record_key: k })).body.record;
      expect(lowered.ends_at - lowered.created_ms).toBe(30 * DAY);
      const fresh = key();
      await c2.rec({ op: 'put', scope: 'tenant', record_key: fresh, body: {}, expect: 0 });
      const dflt = (await c2.rec({ op: 'get', scope: 'tenant', record_key: fresh })).body.record;
      expect(dflt.ends_at - dflt.created_ms).toBe(10 * DAY);
    } finally {
      await svc.admin('PATCH', '/v1/tenants/acme', { max_end_days: 365, default_end_days: 90 });
    }
  });
});

describe('check 11: dedupe', () => {
  it('refuses the same dedupe text in another live record of the scope and purpose, and frees it on close or delete', async () => {
    const c = await caller(svc, 'acme', { input: 'dedupe purpose' });
    const [a, b] = [key(), key()];
    await c.rec({ op: 'put', scope: 'project:d', record_key: a, body: {}, expect: 0, dedupe: 'the same text' });
    const dup = await refusedWithoutWrite(() => c.rec({ op: 'put', scope: 'project:d', record_key: b, body: {}, expect: 0, dedupe: 'the same text' }));
    expect(dup).toMatchObject({ status: 409, body: { error: 'duplicate', key: a, version: 1 } });
    // Another scope, or another purpose, is not a duplicate.
    expect((await c.rec({ op: 'put', scope: 'project:e', record_key: b, body: {}, expect: 0, dedupe: 'the same text' })).status).toBe(200);
    const other = await caller(svc, 'acme', { input: 'another purpose' });
    expect((await other.rec({ op: 'put', scope: 'project:d', record_key: key(), body: {}, expect: 0, dedupe: 'the same text' })).status).toBe(200);
    // Closing frees it.
    await c.rec({ op: 'put', scope: 'project:d', record_key: a, body: {}, expect: 1, closed: true });
    expect((await c.rec({ op: 'put', scope: 'project:d', record_key: b, body: {}, expect: 0, dedupe: 'the same text' })).body.version).toBe(1);
    // Deleting frees it.
    await c.rec({ op: 'put', scope: 'project:d', record_key: b, body: {}, expect: 1, state: 'deleted' });
    expect((await c.rec({ op: 'put', scope: 'project:d', record_key: key(), body: {}, expect: 0, dedupe: 'the same text' })).body.version).toBe(1);
  });

  it('frees dedupe text when its record passes its end', async () => {
    const c = await caller(svc, 'acme', { input: 'ending' });
    const now = (await svc.admin('POST', '/v1/_clock', { advance_ms: 0 })).body.now_ms as number;
    await c.rec({ op: 'put', scope: 'project:end', record_key: key(), body: {}, expect: 0, dedupe: 'soon gone', ends_at: now + DAY });
    expect((await c.rec({ op: 'put', scope: 'project:end', record_key: key(), body: {}, expect: 0, dedupe: 'soon gone' })).body.error).toBe('duplicate');
    await svc.admin('POST', '/v1/_clock', { advance_ms: DAY + 1 });
    const later = await caller(svc, 'acme', { input: 'ending' });
    expect((await later.rec({ op: 'put', scope: 'project:end', record_key: key(), body: {}, expect: 0, dedupe: 'soon gone' })).body.version).toBe(1);
  });
});

describe('check 12: caps', () => {
  it('caps records per plugin and scope; a deleted record frees its place, a closed one does not', async () => {
    await svc.admin('PATCH', '/v1/tenants/capped', { caps: { records: 3, bytes: 1_000_000 } });
    const c = await caller(svc, 'capped');
    for (const k of ['a', 'b', 'c']) expect((await c.rec({ op: 'put', scope: 'project:cap', record_key: k, body: {}, expect: 0 })).body.version).toBe(1);
    expect(await refusedWithoutWrite(() => c.rec({ op: 'put', scope: 'project:cap', record_key: 'd', body: {}, expect: 0 }))).toMatchObject({
      status: 409,
      body: { error: 'full', cap: 'records', limit: 3 },
    });
    // Another scope has its own count.
    expect((await c.rec({ op: 'put', scope: 'project:other', record_key: 'd', body: {}, expect: 0 })).status).toBe(200);
    await c.rec({ op: 'put', scope: 'project:cap', record_key: 'a', body: {}, expect: 1, closed: true });
    expect((await c.rec({ op: 'put', scope: 'project:cap', record_key: 'd', body: {}, expect: 0 })).body.error).toBe('full');
    await c.rec({ op: 'put', scope: 'project:cap', record_key: 'b', body: {}, expect: 1, state: 'deleted' });
    expect((await c.rec({ op: 'put', scope: 'project:cap', record_key: 'd', body: {}, expect: 0 })).body.version).toBe(1);
    // Writing the deleted record again takes a place like a new one.
    expect((await c.rec({ op: 'put', scope: 'project:cap', record_key: 'b', body: {}, expect: 2 })).body).toMatchObject({ error: 'full', cap: 'records' });
  });

  it('caps the bytes of newest bodies', async () => {
    await svc.admin('PATCH', '/v1/tenants/capped', { caps: { records: 100, bytes: 100 } });
    const c = await caller(svc, 'capped');
    expect((await c.rec({ op: 'put', scope: 'project:bytes', record_key: 'a', body: { t: 'x'.repeat(60) }, expect: 0 })).status).toBe(200);
    expect((await c.rec({ op: 'put', scope: 'project:bytes', record_key: 'b', body: { t: 'x'.repeat(60) }, expect: 0 })).body).toMatchObject({
      error: 'full',
      cap: 'bytes',
      limit: 100,
    });
    // A smaller newest version frees bytes: only newest bodies count.
    expect((await c.rec({ op: 'put', scope: 'project:bytes', record_key: 'a', body: {}, expect: 1 })).status).toBe(200);
    expect((await c.rec({ op: 'put', scope: 'project:bytes', record_key: 'b', body: { t: 'x'.repeat(60) }, expect: 0 })).status).toBe(200);
  });
});
