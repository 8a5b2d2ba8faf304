import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * /openapi.json states the rules the service enforces on single fields, and the service keeps
 * them: each rule is read from the document and the request it forbids is sent and refused.
 * Bodies are required only where the route needs one; answers name their real media types.
 */
let svc: TestService;
let doc: any;
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  doc = await (await fetch(`${svc.url}/openapi.json`)).json();
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
}, 120_000);
afterAll(async () => svc?.stop());

const param = (path: string, method: string, name: string) => {
  const p = doc.paths[path][method].parameters.find((x: any) => x.name === name);
  return p.schema;
};
const body = (path: string, method = 'post') => doc.paths[path][method].requestBody.content['application/json'].schema;

describe('query strings', () => {
  it('a count starts at 1 where 0 is refused', async () => {
    expect(param('/v1/tenants/{t}/audit', 'get', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(param('/v1/events/streams', 'get', 'limit')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(param('/v1/tenants/{t}/console/audit-proofs', 'get', 'size')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(param('/v1/tenants/{t}/audit/checkpoint', 'get', 'size')).toMatchObject({ type: 'integer', minimum: 0 });
    expect((await svc.admin('GET', '/v1/tenants/acme/audit?limit=0')).status).toBe(400);
    expect((await svc.admin('GET', '/v1/events/streams?limit=0')).status).toBe(400);
    expect((await svc.admin('GET', '/v1/tenants/acme/audit?limit=1')).status).toBe(200);
  });

  it('a budget is a whole number: an empty budget= is refused, not read as 0', async () => {
    expect(param('/v1/tenants/{t}/audit', 'get', 'budget')).toEqual({ type: 'integer', minimum: 0 });
    for (const bad of ['', '0.5', '1e3', '-1', ' 1'])
      expect((await svc.admin('GET', `/v1/tenants/acme/audit?budget=${encodeURIComponent(bad)}`)).status, JSON.stringify(bad)).toBe(400);
    // Above the cap a budget is read as the cap, never refused: the document gives no maximum.
    expect((await svc.admin('GET', '/v1/tenants/acme/audit?budget=99999999999999999999')).status).toBe(200);
  });

  it('a time is never empty and has one of two forms', async () => {
    const since = param('/v1/tenants/{t}/audit', 'get', 'since');
    expect(since.type).toBe('string');
    const pattern = new RegExp(since.pattern);
    for (const good of ['0', '1764547200000', '2026-12-01', '2026-12-01T10:00', '2026-12-01T10:00:00.5Z', '2026-12-01T10:00:00+02:00']) {
      expect(pattern.test(good), good).toBe(true);
      expect((await svc.admin('GET', `/v1/tenants/acme/audit?since=${encodeURIComponent(good)}`)).status, good).toBe(200);
    }
    for (const bad of ['', '2026-13-01', '2026-12-01T24:00', '1e3', 'yesterday']) {
      expect(pattern.test(bad), bad).toBe(false);
      expect((await svc.admin('GET', `/v1/tenants/acme/audit?since=${encodeURIComponent(bad)}`)).status, bad).toBe(400);
    }
  });

  it('a proof is asked either by leaf and size or by from and to, as one query object', async () => {
    const [query] = doc.paths['/v1/tenants/{t}/audit/proof'].get.parameters.filter((p: any) => p.in === 'query');
    expect(query).toMatchObject({ in: 'query', style: 'form', explode: true, required: true });
    expect(query.schema.oneOf.map((s: any) => s.required)).toEqual([
      ['leaf', 'size'],
      ['from', 'to'],
    ]);
    expect((await svc.admin('GET', '/v1/tenants/acme/audit/proof?leaf=0&size=1&from=1&to=1')).status).toBe(400);
    expect((await svc.admin('GET', '/v1/tenants/acme/audit/proof?leaf=&size=1')).status).toBe(400);
  });
});

describe('bodies', () => {
  it("a hold's selector names something", async () => {
    expect(body('/v1/tenants/{t}/holds').properties.selector.minProperties).toBe(1);
    expect((await svc.admin('POST', '/v1/tenants/acme/holds', { selector: {}, reason: 'r' })).status).toBe(400);
  });

  it("a plugin's functions and agents are each listed once", async () => {
    const install = body('/v1/tenants/{t}/plugins');
    expect(install.properties.agents.uniqueItems).toBe(true);
    expect(install.properties.functions.uniqueItems).toBe(true);
    const r = await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['f'], agents: ['a', 'a'] });
    expect(r.status).toBe(400);
  });

  it("a job's subject, an agent key's agent and a file ref follow their patterns", async () => {
    const start = body('/v1/tenants/{t}/jobs');
    const subject = start.properties.subject.allOf.map((s: any) => new RegExp(s.pattern));
    const fits = (s: string) => subject.every((p: RegExp) => p.test(s));
    expect(fits('user:ada')).toBe(true);
    for (const bad of ['user:a\u0007da', ' user:ada', 'User:ada']) expect(fits(bad), JSON.stringify(bad)).toBe(false);
    expect(new RegExp(start.properties.files.items.pattern).test(`oz0-file:sha256:${'a'.repeat(64)}`)).toBe(true);
    expect(new RegExp(start.properties.files.items.pattern).test('notes.txt')).toBe(false);
    const agent = new RegExp(body('/v1/tenants/{t}/agent-keys').properties.agent.pattern);
    expect(agent.test('notes/scribe')).toBe(true);
    expect(agent.test('notes/scr\u0001ibe')).toBe(false);
    expect((await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'notes/scr\u0001ibe' })).status).toBe(400);
    await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['f'], agents: ['scribe'] });
    for (const [field, value] of [
      ['subject', 'user:a\u0007da'],
      ['files', ['notes.txt']],
    ] as const) {
      const r = await svc.admin('POST', '/v1/tenants/acme/jobs', { agent: 'scribe', plugin: 'notes', subject: 'user:ada', [field]: value });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
    }
  });

  it('no text holds NUL, no key is reserved, no number lies beyond 2^53 − 1', () => {
    const json = doc.components.schemas.JsonValueInput.anyOf;
    expect(json.find((s: any) => s.type === 'string').pattern).toBe('^[^\\u0000]*$');
    expect(json.find((s: any) => s.type === 'number')).toMatchObject({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER });
    expect(json.find((s: any) => s.type === 'object').propertyNames.not.enum).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(body('/v1/tenants/{t}/holds').properties.reason.pattern).toBe('^[^\\u0000]*$');
  });

  it('ending a job or a call needs no body', async () => {
    for (const path of ['/v1/tenants/{t}/jobs/{id}/end', '/v1/tenants/{t}/jobs/{id}/calls/{call}/end'])
      expect(doc.paths[path].post.requestBody.required).toBe(false);
    const started = await svc.admin('POST', '/v1/tenants/acme/jobs', { id: 'j1', agent: 'scribe', plugin: 'notes', subject: 'user:ada' });
    expect(started.status).toBe(201);
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs/j1/end')).status).toBe(200);
    // A route that needs its body still says so.
    expect(doc.paths['/v1/tenants/{t}/jobs'].post.requestBody.required).toBe(true);
  });
});

describe('answers', () => {
  it('the audit key answers PEM, or text/plain with format=vkey, as documented', async () => {
    const content = doc.paths['/v1/audit-key'].get.responses['200'].content;
    expect(Object.keys(content).sort()).toEqual(['application/x-pem-file', 'text/plain']);
    expect((await fetch(`${svc.url}/v1/audit-key`)).headers.get('content-type')).toMatch(/^application\/x-pem-file/);
    expect((await fetch(`${svc.url}/v1/audit-key?format=vkey`)).headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it("an unknown tenant's agent export answers 404, as the tenant does", async () => {
    expect(doc.paths['/v1/tenants/{t}/agents/{agent}/records/export'].get.responses['404']).toBeDefined();
    const r = await svc.admin('GET', '/v1/tenants/nobody/agents/notes%2Fscribe/records/export');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'not_found', what: 'tenant' });
    expect((await svc.admin('GET', '/v1/tenants/nobody')).status).toBe(404);
    expect((await svc.admin('GET', '/v1/tenants/acme/agents/notes%2Fscribe/records/export')).status).toBe(200);
  });

  it('each operation names its refusal statuses, and only ones it can answer', () => {
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
    expect(statuses('/v1/tenants/{t}', 'get')).toEqual(['200', '400', '401', '404', '410', '503']);
    expect(statuses('/v1/records', 'post')).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '429', '503']);
    expect(statuses('/', 'get')).toEqual(['200', '400']);
  });
});
