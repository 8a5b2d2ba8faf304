import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../domain/shared/hash.ts';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let svc: TestService;

const exportOf = async (tenant: string, query = '') => {
  const res = await fetch(`${svc.url}/v1/tenants/${tenant}/export${query}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/x-ndjson');
  return res.text();
};
const split = (text: string) => {
  const lines = text.trimEnd().split('\n');
  return { records: lines.slice(0, -1), manifest: JSON.parse(lines.at(-1)!).manifest };
};
const importInto = (tenant: string, text: string) =>
  fetch(`${svc.url}/v1/tenants/${tenant}/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/x-ndjson' },
    body: text,
  });

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'src' });
  await svc.admin('POST', '/v1/tenants/src/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  await svc.admin('POST', '/v1/tenants/src/plugins', { name: 'alpha', functions: ['save'], agents: ['a'] });
  const c = await caller(svc, 'src', { input: 'export me' });
  const a = await caller(svc, 'src', { input: 'export me', agent: 'a', plugin: 'alpha' });
  await c.rec({ op: 'put', scope: 'tenant', record_key: 'b', body: { n: 1, nested: { z: 1, a: [1, 2] } }, expect: 0, kind: 'decision', labels: undefined });
  await c.rec({ op: 'put', scope: 'tenant', record_key: 'b', body: { n: 2 }, expect: 1, state: 'draft' });
  await c.rec({ op: 'put', scope: 'project:x', record_key: 'a', body: { n: 3 }, expect: 0 });
  await c.rec({ op: 'put', scope: 'tenant', record_key: 'a', body: { n: 4 }, expect: 0, supersedes: 'b' });
  await a.rec({ op: 'put', scope: 'tenant', record_key: 'z', body: { n: 5 }, expect: 0 });
});
afterAll(async () => svc?.stop());

describe('export from the event log', () => {
  it('orders lines by plugin, scope, key, version and ends in a manifest with counts and the SHA-256 of the lines', async () => {
    const { records, manifest } = split(await exportOf('src', '?versions=true'));
    expect(records.map((l) => JSON.parse(l)).map((r) => [r.plugin, r.scope, r.key, r.version])).toEqual([
      ['alpha', 'tenant', 'z', 1],
      ['notes', 'project:x', 'a', 1],
      ['notes', 'tenant', 'a', 1],
      ['notes', 'tenant', 'b', 1],
      ['notes', 'tenant', 'b', 2],
    ]);
    expect(JSON.parse(records[3]!)).toMatchObject({ body: { n: 1, nested: { a: [1, 2], z: 1 } }, kind: 'decision', state: 'active' });
    expect(manifest).toMatchObject({ tenant: 'src', records: 4, versions: 5, sha256: sha256Hex(records.map((l) => `${l}\n`).join('')) });
    const newest = split(await exportOf('src'));
    expect(newest.records.map((l) => JSON.parse(l).version)).toEqual([1, 1, 1, 2]);
  });

  it('gives byte-identical exports at the same position, though each export is audited and moves the log', async () => {
    const first = await exportOf('src', '?versions=true');
    const { manifest } = split(first);
    const again = await exportOf('src', `?versions=true&position=${manifest.position}`);
    expect(again).toBe(first);
    expect(await svc.lastPosition()).toBeGreaterThan(manifest.position);
    // An earlier position rebuilds the tenant as it was.
    const early = split(await exportOf('src', `?versions=true&position=${manifest.position - 1}`));
    expect(early.manifest.versions).toBeLessThanOrEqual(5);
  });

  it('export → import into a new tenant → export gives the same records', async () => {
    const original = await exportOf('src', '?versions=true');
    await svc.admin('POST', '/v1/tenants', { id: 'dst' });
    const res = await importInto('dst', original);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ records: 4, versions: 5 });
    const copy = await exportOf('dst', '?versions=true');
    expect(split(copy).records).toEqual(split(original).records);
    expect(split(copy).manifest).toMatchObject({ tenant: 'dst', records: 4, versions: 5, sha256: split(original).manifest.sha256 });
  });

  it('refuses to import into a tenant with records, or a file whose manifest does not match, writing nothing', async () => {
    const original = await exportOf('src');
    await svc.admin('POST', '/v1/tenants', { id: 'dst2' });
    const head = await svc.lastPosition();
    const busy = await importInto('src', original);
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: 'not_empty' });
    const damaged = await importInto('dst2', original.replace('"n":4', '"n":5'));
    expect(damaged.status).toBe(400);
    expect(await damaged.json()).toMatchObject({ error: 'invalid', field: 'manifest' });
    expect((await importInto('nobody', original)).status).toBe(404);
    expect(await svc.lastPosition()).toBe(head);
  });

  it('the CLI exports and imports through the running service', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'custodian-export-'));
    try {
      const env = { ...process.env, CUSTODIAN_URL: svc.url, CUSTODIAN_ADMIN_KEY: ADMIN_KEY };
      // Asynchronous on purpose: the service answering the CLI runs in this very process.
      const cli = async (...args: string[]) =>
        (await promisify(execFile)(process.execPath, [path.join(root, 'bin/custodian.js'), ...args], { encoding: 'utf8', env })).stdout;
      const out = await cli('export', '--tenant', 'src', '--versions');
      expect(split(out).manifest).toMatchObject({ tenant: 'src', versions: 5 });
      const file = path.join(dir, 'src.jsonl');
      writeFileSync(file, out);
      await svc.admin('POST', '/v1/tenants', { id: 'dst3' });
      expect(JSON.parse(await cli('import', file, '--tenant', 'dst3'))).toEqual({ records: 4, versions: 5 });
      expect(JSON.parse(await cli('retention', 'run', '--tenant', 'dst3'))).toMatchObject({ removed: 0 });
      const held = JSON.parse(await cli('hold', 'place', '--tenant', 'dst3', '--selector', '{"tenant":true}', '--reason', 'cli test'));
      expect(held.hold.selector).toEqual({ tenant: true });
      expect(JSON.parse(await cli('erase', '--tenant', 'dst3', '--subject', 'user:nobody'))).toMatchObject({ erased: 0, deferred: 0 });
      expect(JSON.parse(await cli('hold', 'release', held.hold.id, '--tenant', 'dst3'))).toMatchObject({ released: held.hold.id });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
