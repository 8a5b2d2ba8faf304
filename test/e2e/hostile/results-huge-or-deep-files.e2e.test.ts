import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red team 2, files and offloaded results (SPEC §13) against a hostile-but-authorised plugin.
 * A file is any bytes up to 32 MiB, and `POST /v1/results/read` reads it "by the same rule"
 * (JSON, Markdown or text). The fit library spreads every outline line into one `push(...)`
 * (clients/typescript/src/fit/views.ts `stubOf`) and serialises nested values recursively (clients/typescript/src/fit/json.ts
 * `compact`), so a file with a few hundred thousand parts, or nested deeply, makes every read of
 * it throw RangeError (call stack) and answer 500 — "never 500 on bad input".
 */
let svc: TestService;
let plugin: Caller;

const put = async (bytes: Buffer) => {
  const res = await fetch(`${svc.url}/v1/files`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${plugin.ticket}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  expect(res.status).toBe(200);
  return `oz0-file:sha256:${createHash('sha256').update(bytes).digest('hex')}`;
};
const post = async (path: string, body: string) => {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${plugin.ticket}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, text: (await res.text()).slice(0, 300) };
};

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  plugin = await caller(svc, 'acme', { input: 'hostile plugin' });
});
afterAll(async () => svc?.stop());

const FILES: Record<string, () => Buffer> = {
  'Markdown with 200,000 headings (800 kB)': () => Buffer.from('# h\n'.repeat(200_000)),
  'a JSON object with 200,000 keys (2.5 MB)': () => Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i])))),
  'a JSON array nested 200,000 deep (400 kB)': () => Buffer.from('['.repeat(200_000) + ']'.repeat(200_000)),
};

describe('POST /v1/results/read of a file the tree stored', () => {
  it.each(Object.keys(FILES))('answers %s, not 500', async (name) => {
    const ref = await put(FILES[name]!());
    for (const ask of [{}, { view: 'summary' }, { budget: 0 }]) {
      const res = await post('/v1/results/read', JSON.stringify({ ref, ...ask }));
      expect(res.status, `${JSON.stringify(ask)}: ${res.text}`).toBeLessThan(500);
    }
  });
});

describe('POST /v1/results of a result a tool produced', () => {
  it('offloads an object with 200,000 keys rather than answering 500', async () => {
    const content = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i]));
    const res = await post('/v1/results', JSON.stringify({ tool: 'search', content }));
    expect(res.status, res.text).toBeLessThan(500);
  });

  it('offloads a Markdown string with 200,000 headings rather than answering 500', async () => {
    const res = await post('/v1/results', JSON.stringify({ tool: 'search', content: '# h\n'.repeat(200_000) }));
    expect(res.status, res.text).toBeLessThan(500);
  });
});
