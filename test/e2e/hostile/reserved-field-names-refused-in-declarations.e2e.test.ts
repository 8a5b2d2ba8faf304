import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * A value, a `where` and an `after` are refused when they hold a key `__proto__`,
 * `constructor` or `prototype` (400 naming it). A declaration naming such a field (in `people`
 * or `fields`: list items, not keys, so the key check never saw them) must be refused the same
 * way and write nothing: before, it was declared (200), and no value could ever fill the field
 * nor any query ask for it.
 */
let service: TestService;
let key: string;
beforeAll(async () => {
  service = await startTestService();
  await service.admin('POST', '/v1/tenants', { id: 'acme' });
  key = ((await service.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'bot' })).body as { key: string }).key;
}, 120_000);
afterAll(async () => service?.stop());

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('a collection declaration naming a reserved key as a field', () => {
  it.each([
    ['people', '__proto__'],
    ['fields', 'constructor'],
    ['fields', 'prototype'],
  ])('in %s (%s) is refused 400 naming it, and writes nothing', async (list, field) => {
    const before = await service.lastPosition();
    const declared = await call('PUT', '/v1/agent/collections', { collections: { notes: { people: [], fields: [], [list]: [field] } } });
    expect(declared.status).toBe(400);
    expect(declared.body).toMatchObject({ error: 'invalid', message: expect.stringContaining(field) });
    expect(await service.lastPosition()).toBe(before);
    expect((await call('GET', '/v1/agent/collections')).body).toEqual({ collections: [] });
  });

  it('while a field that only looks like one (proto, Constructor) is declared and queried', async () => {
    expect((await call('PUT', '/v1/agent/collections', { collections: { notes: { fields: ['proto', 'Constructor'] } } })).status).toBe(200);
    expect((await call('PUT', '/v1/agent/records/notes/1', { value: { proto: 'a', Constructor: 'b' } })).status).toBe(200);
    const found = await call('POST', '/v1/agent/records/notes/query', { where: { proto: 'a', Constructor: 'b' } });
    expect(found.body.entries.map((e: { id: string }) => e.id)).toEqual(['1']);
  });
});
