import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * Every refusal is JSON with `error`, a one-sentence `message` (what is wrong, what to
 * change) and `field` where one field is at fault; the agent API's messages start `records:`.
 */

let svc: TestService;
let agentKey = '';
beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect(
    (await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe', 'other'], scopes: ['agent', 'tenant'] }))
      .status,
  ).toBe(201);
  agentKey = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'seller-bot' })).body.key;
  const agent = await agentCall('PUT', '/v1/agent/collections', { collections: { orders: { people: ['buyer'], fields: ['city'] } } });
  expect(agent.status).toBe(200);
}, 120_000);
afterAll(async () => svc?.stop());

const agentCall = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${agentKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

const sentence = (body: any) => {
  expect(typeof body.error).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(10);
};

describe('the records API refusals say what to change', () => {
  it('list options at the top level: names the allowed fields and says they go under list', async () => {
    const c = await caller(svc, 'acme');
    const r = await c.rec({ op: 'list', scope: 'tenant', limit: 2 });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid', field: 'scope', reason: 'unknown field', allowed: ['op', 'list'] });
    expect(r.body.message).toContain('put them under list');
    expect(r.body.message).toContain('op, list');
  });

  it("a put to another agent's scope names the scope field and why", async () => {
    const c = await caller(svc, 'acme');
    const r = await c.rec({ op: 'put', scope: 'agent:other', record_key: 'k', body: {}, expect: 0 });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: 'scope', field: 'scope' });
    expect(r.body.reason).toContain('agent:other');
    expect(r.body.message).toContain('agent:scribe');
  });

  it('the admin key sent to /v1/records: a call ticket is needed, not the admin key', async () => {
    const r = await records(svc, ADMIN_KEY, { op: 'list' });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'ticket', job_purpose: '' });
    expect(r.body.message).toMatch(/call ticket.*not the admin key/);
  });

  it('a string body: a JSON object is expected', async () => {
    const c = await caller(svc, 'acme');
    const r = await c.rec('"put"');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid', field: 'body' });
    expect(r.body.message).toBe('the body is text: send a JSON object');
  });

  it('a wrong type names the field and the type to send', async () => {
    const c = await caller(svc, 'acme');
    const r = await c.rec({ op: 'list', list: { limit: 'two' } });
    expect(r.body).toMatchObject({ error: 'invalid', field: 'list.limit' });
    expect(r.body.message).toBe('list.limit is text: send a number');
  });
});

describe('the agent API refusals start records:', () => {
  const cases: [string, string, string, unknown, RegExp][] = [
    [
      'a where value that is a list',
      'POST',
      '/v1/agent/records/orders/query',
      { where: { city: ['a', 'b'] } },
      /^records: where\.city is a list: send text, a number/,
    ],
    ['limit as text', 'POST', '/v1/agent/records/orders/query', { limit: 'ten' }, /^records: limit is text: send a number/],
    ['a missing value', 'PUT', '/v1/agent/records/orders/o1', { started_ms: 1 }, /^records: value is missing/],
    ['a bad after', 'POST', '/v1/agent/records/orders/query', { after: 'x' }, /^records: after is text: send a JSON object/],
    ['forget without person', 'POST', '/v1/agent/forget', { also: ['a'] }, /^records: person is missing: give text/],
    [
      'an unknown field',
      'POST',
      '/v1/agent/records/orders/query',
      { wher: {} },
      /^records: wher is not a field of the body; the fields allowed there are where, limit, after/,
    ],
  ];
  for (const [name, method, path, body, message] of cases)
    it(name, async () => {
      const r = await agentCall(method, path, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid');
      expect(r.body.message).toMatch(message);
    });

  it('413, 415 and unknown routes answer a records: message', async () => {
    const big = await agentCall('PUT', '/v1/agent/records/orders/o1', { value: 'x'.repeat(400_000) });
    expect(big.status).toBe(413);
    expect(big.body.message).toMatch(/^records: the body is too large/);
    const text = await agentCall('PUT', '/v1/agent/records/orders/o1', undefined, { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(text.body.message).toMatch(/^records: this media type is not accepted/);
    const nowhere = await agentCall('GET', '/v1/agent/nowhere');
    expect(nowhere.status).toBe(404);
    expect(nowhere.body).toMatchObject({ error: 'not_found', what: 'route' });
    expect(nowhere.body.message).toMatch(/^records: no route GET \/v1\/agent\/nowhere/);
  });
});

describe('audit filters that cannot match are refused', () => {
  const audit = (q: string) => svc.admin('GET', `/v1/tenants/acme/audit?${q}`);
  it('a record not written scope#key', async () => {
    const r = await audit('record=tenant/decisions/deploy');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid', field: 'querystring.record' });
    expect(r.body.message).toContain('%23');
  });
  it('an unencoded # (the client drops what follows)', async () => {
    const r = await fetch(`${svc.url}/v1/tenants/acme/audit?record=tenant#decisions/deploy`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).field).toBe('querystring.record');
  });
  it('an unknown kind, listing the kinds', async () => {
    const r = await audit('kind=writes');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid', field: 'querystring.kind' });
    expect(r.body.message).toContain('"write"');
    expect(r.body.message).toContain('"job_started"');
  });
  it('times as ISO 8601 or milliseconds; anything else is refused', async () => {
    expect((await audit('since=2026-12-01')).status).toBe(200);
    expect((await audit('since=2026-12-01T10:00:00Z&until=2026-12-02T00:00')).status).toBe(200);
    expect((await audit('since=1764547200000')).status).toBe(200);
    expect((await audit('record=tenant%23decisions/deploy&kind=write')).status).toBe(200);
    for (const bad of ['yesterday', '2026-13-45', '12abc', '-5']) {
      const r = await audit(`since=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.field).toBe('querystring.since');
      expect(r.body.message).toContain('ISO 8601');
    }
  });
});

describe('every other edge refusal carries a message', () => {
  it('admin 401, unknown routes 404, bad JSON 400', async () => {
    const none = await svc.admin('GET', '/v1/tenants/acme', undefined, { authorization: '' });
    expect(none.status).toBe(401);
    sentence(none.body);
    const lost = await svc.admin('GET', '/nowhere');
    expect(lost.status).toBe(404);
    expect(lost.body.message).toContain('/openapi.json');
    const bad = await svc.admin('POST', '/v1/tenants', '{"id":');
    expect(bad.body).toMatchObject({ error: 'invalid', field: 'body', reason: 'body is not valid JSON' });
    sentence(bad.body);
    const missing = await svc.admin('GET', '/v1/tenants/nobody');
    expect(missing.body).toMatchObject({ error: 'not_found', what: 'tenant' });
    sentence(missing.body);
  });
});
