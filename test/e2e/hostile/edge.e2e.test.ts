import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reachableUrl, startService } from '../../../adapters/service.ts';
import { newAuditKey } from '../../../adapters/keys/audit-key.ts';
import { purposeOfInput } from '../../../domain/jobs/purpose.ts';
import { freshDatabase } from '../../support/database.ts';
import { caller, type Caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { hostileUpload, rawRequest } from './edge-raw-http.ts';

let svc: TestService;
const PURPOSE = purposeOfInput('default input');
const MiB = 1 << 20;

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
});
afterAll(async () => svc?.stop());

const host = () => `Host: ${new URL(svc.url).host}`;
const post = (ticket: string, body: string | Buffer, type = 'application/json') =>
  rawRequest(svc.url, 'POST', '/v1/records', [host(), `Authorization: Bearer ${ticket}`, `Content-Type: ${type}`], body);

/** A refusal writes nothing: the log does not move. */
const unchanged = async <T>(attempt: () => Promise<T>): Promise<T> => {
  const head = await svc.lastPosition();
  const r = await attempt();
  expect(await svc.lastPosition()).toBe(head);
  return r;
};

describe('request targets and headers', () => {
  it('refuses an absolute-form target with a JSON 400, even with the admin key, and serves nothing', async () => {
    const r = await unchanged(() =>
      rawRequest(svc.url, 'POST', 'http://x/v1/tenants', [host(), `Authorization: Bearer ${ADMIN_KEY}`, 'Content-Type: application/json'], '{"id":"absolute"}'),
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: 'invalid', field: 'target' });
    expect((await svc.admin('GET', '/v1/tenants/absolute')).status).toBe(404);
  });

  it('answers a request without a Host header with a JSON 400, not an empty body', async () => {
    const r = await rawRequest(svc.url, 'GET', '/healthz', []);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: 'invalid', field: 'host' });
  });
});

describe('records API: the ticket is checked before anything else (SPEC §4)', () => {
  it('413 too_large is answered after the ticket, carries job_purpose, and counts toward the 64', async () => {
    const c = await caller(svc, 'acme');
    const big = JSON.stringify({ op: 'put', scope: 'tenant', record_key: 'big', expect: 0, body: { text: 'x'.repeat(128 * 1024) } });
    for (let i = 0; i < 64; i++) {
      const r = await unchanged(() => post(c.ticket, big));
      expect(r.status).toBe(413);
      expect(r.json).toMatchObject({ error: 'too_large', job_purpose: PURPOSE });
    }
    const next = await c.rec({ op: 'list' });
    expect(next).toMatchObject({ status: 429, body: { error: 'requests', job_purpose: PURPOSE } });
  });

  it('415 is answered after the ticket, carries job_purpose, and counts toward the 64', async () => {
    const c = await caller(svc, 'acme');
    for (let i = 0; i < 32; i++) {
      const r = await unchanged(() => post(c.ticket, 'op=list', 'text/plain'));
      expect(r.status).toBe(415);
      expect(r.json).toMatchObject({ error: 'unsupported_media_type', job_purpose: PURPOSE });
      const nd = await unchanged(() => post(c.ticket, '{"op":"list"}\n', 'application/x-ndjson'));
      expect(nd.status).toBe(415);
      expect(nd.json).toMatchObject({ error: 'unsupported_media_type', job_purpose: PURPOSE });
    }
    expect(await c.rec({ op: 'list' })).toMatchObject({ status: 429, body: { error: 'requests', job_purpose: PURPOSE } });
  });

  it('an unknown or missing ticket is 401 ticket with an empty job_purpose, whatever the body size or type', async () => {
    const unknown = randomBytes(32).toString('base64url');
    const big = 'x'.repeat(128 * 1024);
    for (const [lines, body] of [
      [[`Authorization: Bearer ${unknown}`, 'Content-Type: application/json'], big],
      [[`Authorization: Bearer ${unknown}`, 'Content-Type: text/plain'], 'hello'],
      [['Content-Type: application/x-ndjson'], big],
      [['Content-Type: application/json'], '{"op":"list"'],
    ] as const) {
      const r = await unchanged(() => rawRequest(svc.url, 'POST', '/v1/records', [host(), ...lines], body));
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ error: 'ticket', message: expect.any(String), job_purpose: '' });
    }
  });

  it('an unauthenticated 64 MiB upload is answered 401 without the server reading it', async () => {
    const declared = 64 * MiB;
    for (const type of ['application/x-ndjson', 'application/json']) {
      const { answer, written } = await hostileUpload(svc.url, '/v1/records', [host(), `Content-Type: ${type}`, 'Authorization: Bearer nope'], declared);
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ error: 'ticket', message: expect.any(String), job_purpose: '' });
      expect(written).toBeLessThan(declared);
    }
  });

  it('with a live ticket, a 64 MiB upload is answered 413 or 415 with job_purpose without the server reading it', async () => {
    const c = await caller(svc, 'acme');
    const declared = 64 * MiB;
    for (const [type, status] of [
      ['application/x-ndjson', 415],
      ['application/json', 413],
    ] as const) {
      const { answer, written } = await hostileUpload(svc.url, '/v1/records', [host(), `Content-Type: ${type}`, `Authorization: Bearer ${c.ticket}`], declared);
      expect(answer.status).toBe(status);
      expect(answer.json).toMatchObject({ job_purpose: PURPOSE });
      expect(written).toBeLessThan(declared);
    }
  });

  it('an import without the admin key is answered 401 without reading its upload', async () => {
    const declared = 64 * MiB;
    const { answer, written } = await hostileUpload(svc.url, '/v1/tenants/acme/import', [host(), 'Content-Type: application/x-ndjson'], declared);
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ error: 'unauthorized' });
    expect(written).toBeLessThan(declared);
  });

  it('the records API does not take more than its body plus envelope (413 past 64 KiB)', async () => {
    const c = await caller(svc, 'acme');
    const justOver = JSON.stringify({ op: 'list', list: { prefix: 'x'.repeat(64 * 1024) } });
    expect((await post(c.ticket, justOver)).status).toBe(413);
    // A 16 KiB body, every character escaped as \uXXXX, still arrives and is judged by check 4+.
    const escaped = `{"op":"put","scope":"tenant","record_key":"esc","expect":0,"body":{"t":"${'\\u00e9'.repeat(8000)}"}}`;
    const r = await post(c.ticket, escaped);
    expect(r.status).toBe(200);
  });
});

describe('input hygiene at the edge', () => {
  let c: Caller;
  beforeAll(async () => {
    c = await caller(svc, 'acme');
  });

  it.each([
    ['a lone surrogate in a body string', '{"op":"put","scope":"tenant","record_key":"s1","expect":0,"body":{"x":"\\ud800"}}', 'body.x'],
    ['a lone low surrogate in a key', '{"op":"put","scope":"tenant","record_key":"s2","expect":0,"body":{"a\\udc00":1}}', 'body'],
    ['NUL in a body string', '{"op":"put","scope":"tenant","record_key":"s3","expect":0,"body":{"x":["ok","a\\u0000b"]}}', 'body.x[1]'],
    ['NUL in kind', '{"op":"put","scope":"tenant","record_key":"s4","expect":0,"body":{},"kind":"a\\u0000"}', 'kind'],
    ['NUL in state', '{"op":"put","scope":"tenant","record_key":"s5","expect":0,"body":{},"state":"\\u0000"}', 'state'],
    ['NUL in a list filter', '{"op":"list","list":{"kinds":["a\\u0000"]}}', 'list.kinds[0]'],
    ['a __proto__ key', '{"op":"put","scope":"tenant","record_key":"s6","expect":0,"body":{"__proto__":{"x":1}}}', 'body.__proto__'],
    ['a constructor key', '{"op":"put","scope":"tenant","record_key":"s7","expect":0,"body":{"a":{"constructor":1}}}', 'body.a.constructor'],
    ['a number JSON cannot carry back', '{"op":"put","scope":"tenant","record_key":"s8","expect":0,"body":{"n":1e999}}', 'body.n'],
  ])('refuses %s as check 3 (400 invalid naming the field, with job_purpose)', async (_name, text, field) => {
    const r = await unchanged(() => post(c.ticket, text));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: 'invalid', field, job_purpose: PURPOSE });
  });

  it('refuses bytes that are not UTF-8 in a body string (a lone surrogate encoded raw) with 400, never storing them altered', async () => {
    const text = Buffer.concat([
      Buffer.from('{"op":"put","scope":"tenant","record_key":"raw","expect":0,"body":{"s":"a'),
      Buffer.from([0xed, 0xa0, 0x80, 0xff]),
      Buffer.from('b"}}'),
    ]);
    const r = await unchanged(() => post(c.ticket, text));
    expect(r).toMatchObject({ status: 400, json: { error: 'invalid', field: 'body', job_purpose: PURPOSE } });
    const job = Buffer.concat([Buffer.from('{"agent":"scribe","plugin":"notes","subject":"'), Buffer.from([0xc3]), Buffer.from('","input":"x"}')]);
    const admin = await unchanged(() =>
      fetch(`${svc.url}/v1/tenants/acme/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: job,
      }),
    );
    expect([admin.status, await admin.json()]).toMatchObject([400, { error: 'invalid', field: 'body' }]);
  });

  it('refuses 2,000-deep nesting with 400, not a 500, on the records API and the admin API', async () => {
    const deep = `{"op":"put","scope":"tenant","record_key":"deep","expect":0,"body":{"x":${'['.repeat(2000)}${']'.repeat(2000)}}}`;
    const r = await unchanged(() => post(c.ticket, deep));
    expect(r).toMatchObject({ status: 400, json: { error: 'invalid', job_purpose: PURPOSE } });
    const admin = await unchanged(() =>
      svc.admin('POST', '/v1/tenants/acme/jobs', `{"agent":"scribe","plugin":"notes","subject":"s","input":${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`),
    );
    expect(admin).toMatchObject({ status: 400, body: { error: 'invalid', field: 'body' } });
  });

  it('a hygiene failure with a bad ticket is still a ticket refusal (check 1 first)', async () => {
    const r = await post('not-a-ticket', '{"op":"put","scope":"tenant","record_key":"x","expect":0,"body":{"x":"\\ud800"}}');
    expect(r).toMatchObject({ status: 401, json: { error: 'ticket', job_purpose: '' } });
  });

  it('a body with a __proto__ key is never acknowledged and then altered; keys like "proto" are kept exactly', async () => {
    const kept = await c.rec({ op: 'put', scope: 'tenant', record_key: 'kept', expect: 0, body: { proto: 1, _proto_: { toString: 'x' } } });
    expect(kept.status).toBe(200);
    const read = await c.rec({ op: 'get', scope: 'tenant', record_key: 'kept' });
    expect(read.body.record.body).toEqual({ proto: 1, _proto_: { toString: 'x' } });
  });

  it.each([
    ['job subject', 'POST', '/v1/tenants/acme/jobs', '{"agent":"scribe","plugin":"notes","subject":"a\\u0000b","input":"x"}', 'subject'],
    ['job purpose input', 'POST', '/v1/tenants/acme/jobs', '{"agent":"scribe","plugin":"notes","subject":"s","input":{"q":"\\ud83d"}}', 'input.q'],
    [
      'job constraints',
      'POST',
      '/v1/tenants/acme/jobs',
      '{"agent":"scribe","plugin":"notes","subject":"s","input":"x","constraints":["ok","\\u0000"]}',
      'constraints[1]',
    ],
    ['a settings name', 'PATCH', '/v1/tenants/acme', '{"start_roles":["a\\u0000"]}', 'start_roles[0]'],
    ['a person name (a key)', 'PATCH', '/v1/tenants/acme', '{"people":{"a\\u0000":{"roles":[],"teams":[]}}}', 'people'],
    ['a hold reason', 'POST', '/v1/tenants/acme/holds', '{"selector":{"tenant":true},"reason":"\\udfff"}', 'reason'],
    ['an erasure subject', 'POST', '/v1/tenants/acme/erasures', '{"data_subject":"user:\\u0000"}', 'data_subject'],
    ['a revocation key', 'POST', '/v1/tenants/acme/revocations', '{"revocations":[{"kind":"api_key_revoked","key":"\\u0000"}]}', 'revocations[0].key'],
    ['a __proto__ settings key', 'PATCH', '/v1/tenants/acme', '{"__proto__":{"retention_days":1}}', '__proto__'],
  ])('refuses bad bytes in %s with 400 naming the field', async (_name, method, path, body, field) => {
    const r = await unchanged(() => svc.admin(method, path, body));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid', field });
  });

  it.each([
    ['NUL in an audit filter', '/v1/tenants/acme/audit?kind=a%00b', 'query.kind'],
    ['NUL in a renewals filter', '/v1/tenants/acme/renewals?plugin=%00', 'query.plugin'],
    ['NUL in a path parameter', '/v1/tenants/a%00/jobs/j', 'params.t'],
    ['NUL in a job id', '/v1/tenants/acme/jobs/j%00', 'params.id'],
    ['a __proto__ query key', '/v1/tenants/acme/audit?__proto__=x', 'query.__proto__'],
  ])('refuses %s with 400 before it reaches PostgreSQL', async (_name, path, field) => {
    const r = await unchanged(() => rawRequest(svc.url, 'GET', path, [host(), `Authorization: Bearer ${ADMIN_KEY}`]));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: 'invalid', field });
  });

  it('an import cannot store what the records API refuses: a lone surrogate in a line is 400 naming the line', async () => {
    expect((await svc.admin('POST', '/v1/tenants', { id: 'empty' })).status).toBe(201);
    const text = '{"record":{"body":{"x":"\\ud800"}}}\n{"manifest":{"sha256":"0"}}\n';
    const res = await unchanged(() =>
      fetch(`${svc.url}/v1/tenants/empty/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/x-ndjson' },
        body: text,
      }),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid', field: 'line 1.record.body.x' });
  });

  it('after a refused lone-surrogate put, the tenant still exports', async () => {
    await c.rec({ op: 'put', scope: 'tenant', record_key: 'fine', expect: 0, body: { ok: 'é😀' } });
    expect((await post(c.ticket, '{"op":"put","scope":"tenant","record_key":"bad","expect":0,"body":{"x":"\\ud800"}}')).status).toBe(400);
    const res = await fetch(`${svc.url}/v1/tenants/acme/export`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"fine"');
  });
});

describe("the ticket's _meta URL is a loopback address a tool can reach", () => {
  it('maps wildcard binds to 127.0.0.1 and brackets IPv6', () => {
    expect(reachableUrl({ address: '0.0.0.0', family: 'IPv4', port: 5 })).toBe('http://127.0.0.1:5');
    expect(reachableUrl({ address: '::', family: 'IPv6', port: 5 })).toBe('http://127.0.0.1:5');
    expect(reachableUrl({ address: '127.0.0.1', family: 'IPv4', port: 5 })).toBe('http://127.0.0.1:5');
    expect(reachableUrl({ address: '::1', family: 'IPv6', port: 5 } satisfies AddressInfo)).toBe('http://[::1]:5');
  });

  it.each(['0.0.0.0', '::'])('with HOST=%s the _meta URL is http://127.0.0.1:<port>/v1/records, and it answers', async (bind) => {
    const db = await freshDatabase();
    const s = await startService({ databaseUrl: db.url, adminKey: ADMIN_KEY, masterKey: randomBytes(32), auditKey: newAuditKey(), host: bind, port: 0 });
    try {
      const port = (s.http.server.address() as AddressInfo).port;
      const admin = (method: string, path: string, body: unknown) =>
        fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((r) => r.json() as Promise<any>);
      await admin('POST', '/v1/tenants', { id: 'wide' });
      await admin('POST', '/v1/tenants/wide/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
      await admin('POST', '/v1/tenants/wide/jobs', { id: 'j', agent: 'scribe', plugin: 'notes', subject: 's', input: 'x' });
      const minted = await admin('POST', '/v1/tenants/wide/jobs/j/calls', { function: 'save' });
      const { url, ticket } = minted._meta['oz0/records'];
      expect(url).toBe(`http://127.0.0.1:${port}/v1/records`);
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/json' },
        body: '{"op":"list"}',
      });
      expect(res.status).toBe(200);
    } finally {
      await s.close();
      await db.drop();
    }
  });
});
