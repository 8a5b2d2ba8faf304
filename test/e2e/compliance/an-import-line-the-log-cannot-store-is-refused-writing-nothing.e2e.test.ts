import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../domain/records/rules.ts';
import { sha256Hex } from '../../../domain/shared/hash.ts';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/*
 * An export's lines are loaded scope by scope, each scope its own append: a line whose field
 * the log's read models cannot store (a version that is not a PostgreSQL int, a time that is
 * not whole milliseconds, a key of the wrong type, a version twice) failed its scope's commit
 * with a 500 after the scopes before it were written, and the import could then never be
 * tried again (the tenant had records). Every line is checked before anything is written.
 */
let svc: TestService;
let lines: string[] = [];
let made = 0;

const withManifest = (rows: readonly string[]) => {
  const body = rows.map((l) => `${l}\n`).join('');
  return `${body}${JSON.stringify({ manifest: { sha256: sha256Hex(body) } })}\n`;
};
const importInto = (tenant: string, text: string) =>
  fetch(`${svc.url}/v1/tenants/${tenant}/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/x-ndjson' },
    body: text,
  });
const exportLines = async (tenant: string) => {
  const res = await fetch(`${svc.url}/v1/tenants/${tenant}/export?versions=true`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.text()).trimEnd().split('\n').slice(0, -1);
};
const freshTenant = async () => {
  const id = `dst${++made}`;
  expect((await svc.admin('POST', '/v1/tenants', { id })).status).toBe(201);
  return id;
};

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'src' });
  await svc.admin('POST', '/v1/tenants/src/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  const c = await caller(svc, 'src', { input: 'export me' });
  await c.rec({ op: 'put', scope: 'tenant', record_key: 'b', body: { n: 1 }, expect: 0 });
  await c.rec({ op: 'put', scope: 'project:x', record_key: 'a', body: { n: 2 }, expect: 0 });
  // Ordered by scope: project:x first, so the bad line's scope (tenant) is loaded second.
  lines = await exportLines('src');
  expect(lines.map((l) => JSON.parse(l).scope)).toEqual(['project:x', 'tenant']);
});
afterAll(async () => svc?.stop());

describe('an import line the log cannot store is refused, writing nothing', () => {
  it.each([
    ['a fractional version', { version: 1.5 }, 'line 2.version'],
    ['a version beyond a PostgreSQL int', { version: 3e9 }, 'line 2.version'],
    ['a fractional end time', { ends_at: 1.5 }, 'line 2.ends_at'],
    ['labels that are not a list', { labels: null }, 'line 2.labels'],
    ['a key that is not a string', { key: 5 }, 'line 2.key'],
    ['a plugin name a stream cannot hold', { plugin: 'a:b' }, 'line 2.plugin'],
    // A put refuses it: an import is no way around that (a body past what one event holds failed the scope's commit).
    ["a body one byte over a put's limit", { body: { note: 'x'.repeat(MAX_BODY_BYTES - '{"note":""}'.length + 1) } }, 'line 2.body'],
  ])('%s: 400 naming the field, and no scope of the file loaded', async (_name, change, field) => {
    const tenant = await freshTenant();
    const head = await svc.lastPosition();
    const res = await importInto(tenant, withManifest([lines[0]!, JSON.stringify({ ...JSON.parse(lines[1]!), ...change })]));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid', field });
    expect(await svc.lastPosition()).toBe(head);
    expect(await exportLines(tenant)).toEqual([]);
  });

  it('a version that appears twice: 400 naming the second line, and nothing loaded', async () => {
    const tenant = await freshTenant();
    const head = await svc.lastPosition();
    const res = await importInto(tenant, withManifest([lines[0]!, lines[1]!, lines[1]!]));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid', field: 'line 3' });
    expect(await svc.lastPosition()).toBe(head);
    expect(await exportLines(tenant)).toEqual([]);
  });

  it("a body at a put's limit loads", async () => {
    const tenant = await freshTenant();
    const body = { note: 'x'.repeat(MAX_BODY_BYTES - '{"note":""}'.length) };
    expect(Buffer.byteLength(JSON.stringify(body))).toBe(MAX_BODY_BYTES);
    const res = await importInto(tenant, withManifest([lines[0]!, JSON.stringify({ ...JSON.parse(lines[1]!), body })]));
    expect(res.status).toBe(200);
    expect((await exportLines(tenant)).map((l) => JSON.parse(l).body)).toEqual([JSON.parse(lines[0]!).body, body]);
  });

  it('the same file with good lines still loads whole', async () => {
    const tenant = await freshTenant();
    const res = await importInto(tenant, withManifest(lines));
    expect(res.status).toBe(200);
    expect(await exportLines(tenant)).toEqual(lines);
  });
});
