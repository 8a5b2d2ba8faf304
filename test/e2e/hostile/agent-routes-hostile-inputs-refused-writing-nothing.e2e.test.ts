import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';
import { rawRequest } from './edge-raw-http.ts';

/**
 * The agent-collection routes under hostile input: no credential, a forged one, another
 * tenant's agent key reaching for this tenant's records, percent-encoded and absolute-form
 * targets, NUL bytes and lone surrogates in ids and values, JSON 10,000 levels deep, a body
 * over the limit. Each is a 4xx JSON error saying what to change, and nothing is appended.
 */
let svc: TestService;
let key: string;
let other: string;
beforeAll(async () => {
  svc = await startTestService();
  for (const t of ['acme', 'globex']) expect((await svc.admin('POST', '/v1/tenants', { id: t })).status).toBe(201);
  key = ((await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'scout' })).body as { key: string }).key;
  other = ((await svc.admin('POST', '/v1/tenants/globex/agent-keys', { agent: 'scout' })).body as { key: string }).key;
  const call = (method: string, path: string, body: unknown) =>
    fetch(`${svc.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await call('PUT', '/v1/agent/collections', { collections: { notes: { fields: ['status'] } } })).status).toBe(200);
  expect((await call('PUT', '/v1/agent/records/notes/n1', { value: { status: 'secret' } })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const send = async (method: string, path: string, auth: string | null, body?: string, type = 'application/json') => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { ...(auth === null ? {} : { authorization: auth }), ...(body === undefined ? {} : { 'content-type': type }) },
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
};

/** A 4xx JSON error naming what is wrong, with nothing appended to the log. */
const refusedWritingNothing = async (answer: () => Promise<{ status: number; json: any; text: string }>) => {
  const before = await svc.lastPosition();
  const r = await answer();
  expect(r.status, r.text).toBeGreaterThanOrEqual(400);
  expect(r.status, r.text).toBeLessThan(500);
  expect(typeof r.json?.error, r.text).toBe('string');
  expect(JSON.stringify(r.json).length, r.text).toBeGreaterThan(20);
  expect(await svc.lastPosition()).toBe(before);
  return r;
};

const deep = (n: number) => `{"value":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`;
const bearer = () => `Bearer ${key}`;

describe('agent-collection routes, hostile inputs', () => {
  it('no credential, a forged one, a malformed header', async () => {
    for (const auth of [null, 'Bearer ', 'Bearer not-a-key', `Basic ${key}`, `Bearer ${key}x`, `Bearer ${key.slice(0, -2)}`])
      await refusedWritingNothing(() => send('PUT', '/v1/agent/records/notes/x1', auth, '{"value":{"status":"a"}}'));
  });
  it("another tenant's agent of the same name never sees or writes this tenant's records", async () => {
    const got = await send('GET', '/v1/agent/records/notes/n1', `Bearer ${other}`);
    expect(got.status).toBe(404);
    expect(got.text).not.toContain('secret');
    const q = await send('POST', '/v1/agent/records/notes/query', `Bearer ${other}`, '{"where":{"status":"secret"}}');
    expect(q.status).toBe(404);
  });
  it('NUL bytes and lone surrogates in ids and values', async () => {
    for (const id of ['%00', 'a%00b', '%ED%A0%80', 'x'.repeat(600)])
      await refusedWritingNothing(() => send('PUT', `/v1/agent/records/notes/${id}`, bearer(), '{"value":{"status":"a"}}'));
    for (const body of ['{"value":{"status":"a\\u0000b"}}', '{"value":{"status":"\\ud800"}}', '{"value":{"\\udc00":"x"}}', '{"value":{"s\\u0000":"x"}}'])
      await refusedWritingNothing(() => send('PUT', '/v1/agent/records/notes/ok1', bearer(), body));
    for (const name of ['no\\u0000tes', '\\ud800'])
      await refusedWritingNothing(() => send('PUT', '/v1/agent/collections', bearer(), `{"collections":{"${name}":{"fields":["a"]}}}`));
  });
  it('JSON 10,000 levels deep, a body over the limit, not JSON, the wrong type', async () => {
    await refusedWritingNothing(() => send('PUT', '/v1/agent/records/notes/deep', bearer(), deep(10_000)));
    await refusedWritingNothing(() => send('POST', '/v1/agent/records/notes/query', bearer(), `{"where":${deep(10_000).slice(9, -1)}}`));
    await refusedWritingNothing(() => send('PUT', '/v1/agent/records/notes/big', bearer(), `{"value":{"s":"${'x'.repeat(8 << 20)}"}}`));
    await refusedWritingNothing(() => send('PUT', '/v1/agent/records/notes/nj', bearer(), '{"value":'));
    await refusedWritingNothing(() => send('PUT', '/v1/agent/records/notes/tx', bearer(), '{"value":{"s":1}}', 'text/plain'));
    await refusedWritingNothing(() => send('PUT', '/v1/agent/records/notes/arr', bearer(), '{"value":[1,2]}'));
  });
  it('absolute-form and percent-encoded targets', async () => {
    const { host } = new URL(svc.url);
    for (const target of [
      `http://${host}/v1/agent/records/notes/abs1`,
      '/v1/agent/records/notes/%2e%2e/%2e%2e/collections',
      '/v1/agent%2Frecords/notes/p1',
      '//v1/agent/records/notes/p2',
    ])
      await refusedWritingNothing(async () => {
        const r = await rawRequest(
          svc.url,
          'PUT',
          target,
          [`host: ${host}`, `authorization: Bearer ${key}`, 'content-type: application/json'],
          '{"value":{"status":"a"}}',
        );
        return { status: r.status, json: r.json, text: r.text };
      });
  });
});
