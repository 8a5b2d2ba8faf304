import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { entriesOf, MAX_BUNDLED_ENTRY, partialWidth, entriesPath } from '../../../domain/audit/tiles.ts';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

// Three hundred puts on a busy machine take a while; nothing is timed.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });

const KEY = `${'k'.repeat(199)}z`;
const VERSIONS = 300;
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  let w = await caller(svc, 'acme', { input: 'history' });
  for (let v = 0; v < VERSIONS; v++) {
    // One call makes at most 64 requests: a new call of the same job every 60.
    if (v > 0 && v % 60 === 0) w = await caller(svc, 'acme', { input: 'history', job: w.job });
    const put = await w.rec({ op: 'put', scope: 'project:a', record_key: KEY, body: { v }, expect: v });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  }
  w = await caller(svc, 'acme', { input: 'history', job: w.job });
  const history = await w.rec({ op: 'history', scope: 'project:a', record_key: KEY });
  expect(history.body.records).toHaveLength(VERSIONS);
  await svc.runner.catchUp();
});
afterAll(async () => svc?.stop());

describe('an entry too long for an entry bundle is logged in parts, so every bundle of the log is served', () => {
  it(`given a history of ${VERSIONS} versions of a 200-character key, then every entry bundle answers 200, each entry fits a uint16, and the read's parts name every version once`, async () => {
    const note = await fetch(`${svc.url}/v1/tenants/acme/audit/log/checkpoint`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const size = Number((await note.text()).split('\n')[1]);
    const lines: string[] = [];
    for (let n = 0; n * 256 < size; n++) {
      const res = await fetch(`${svc.url}/v1/tenants/acme/audit/log/${entriesPath(n, partialWidth(0, n, size))}`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      expect(res.status).toBe(200);
      const entries = entriesOf(Buffer.from(await res.arrayBuffer()))!;
      for (const e of entries) expect(e.length).toBeLessThanOrEqual(MAX_BUNDLED_ENTRY);
      lines.push(...entries.map(String));
    }
    expect(lines).toHaveLength(size);
    const parts = lines.map((l) => JSON.parse(l)).filter((e) => e.kind === 'read' && e.op === 'history');
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((p) => p.part)).toEqual(parts.map((_, i) => i + 1));
    expect(parts.flatMap((p) => p.records.map((r: { version: number }) => r.version))).toEqual(Array.from({ length: VERSIONS }, (_, i) => VERSIONS - i));
    // Consecutive places: the parts of one read are committed together.
    expect(parts.map((p) => p.seq)).toEqual(parts.map((_, i) => parts[0].seq + i));
  });
});
