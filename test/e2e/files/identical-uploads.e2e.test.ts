import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/** Identical uploads at once (a retried tool call) are all stored, once: none answers 500. */
let svc: TestService;
const PARALLEL = 50;

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => svc?.stop());

/** One ticket per upload, all calls of one job (one tree), as parallel tool calls hold them. */
const tickets = async (job: string): Promise<string[]> =>
  Promise.all(
    Array.from({ length: PARALLEL }, async (_, i) => {
      const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${job}/calls`, { function: 'save', step: 10 + i });
      expect(minted.status).toBe(201);
      return minted.body._meta['oz0/records'].ticket as string;
    }),
  );

const copies = async (sha256: string) => {
  const files = await svc.pool.query('SELECT tree, chunks FROM custodian_blobs WHERE tenant = $1 AND sha256 = $2', ['acme', sha256]);
  const chunks = await svc.pool.query('SELECT count(*)::int AS n FROM custodian_blob_chunks WHERE tenant = $1 AND sha256 = $2', ['acme', sha256]);
  return { files: files.rows.length, chunks: chunks.rows[0].n, expectedChunks: files.rows[0]?.chunks };
};

describe('identical uploads in parallel', () => {
  it(`${PARALLEL} parallel PUT /v1/files of the same bytes: all 200, one stored copy that reads back`, async () => {
    const job = await caller(svc, 'acme', { input: 'uploads' });
    const each = await tickets(job.job);
    const bytes = randomBytes(480_000);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const answers = await Promise.all(
      each.map(async (ticket) => {
        const res = await fetch(`${svc.url}/v1/files`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/octet-stream' },
          body: bytes,
        });
        return { status: res.status, body: await res.json() };
      }),
    );
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    for (const a of answers) expect(a.body).toEqual({ ref: `oz0-file:sha256:${sha256}`, size: bytes.length });
    expect(await copies(sha256)).toEqual({ files: 1, chunks: 1, expectedChunks: 1 });
    const read = await fetch(`${svc.url}/v1/files/${encodeURIComponent(`oz0-file:sha256:${sha256}`)}`, { headers: { authorization: `Bearer ${job.ticket}` } });
    expect(read.status).toBe(200);
    expect(Buffer.from(await read.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it(`${PARALLEL} parallel POST /v1/results of the same content: all 200 with the same stub, one stored copy`, async () => {
    const job = await caller(svc, 'acme', { input: 'results', start: { offload: 100 } });
    const each = await tickets(job.job);
    const content = `# Report\n\n${Array.from({ length: 3000 }, (_, i) => `Line ${i} of a long Markdown result.`).join('\n')}\n`;
    const sha256 = createHash('sha256').update(Buffer.from(content, 'utf8')).digest('hex');
    const answers = await Promise.all(
      each.map(async (ticket) => {
        const res = await fetch(`${svc.url}/v1/results`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/json' },
          body: JSON.stringify({ tool: 'report', content }),
        });
        return { status: res.status, body: (await res.json()) as any };
      }),
    );
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const stub = answers[0]!.body;
    expect(stub.offloaded.ref).toBe(`oz0-file:sha256:${sha256}`);
    for (const a of answers) expect(a.body).toEqual(stub);
    expect(await copies(sha256)).toEqual({ files: 1, chunks: 1, expectedChunks: 1 });
    const read = await fetch(`${svc.url}/v1/results/read`, {
      method: 'POST',
      headers: { authorization: `Bearer ${job.ticket}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ref: stub.offloaded.ref, range: '2999-3001', budget: 2000 }),
    });
    expect(read.status).toBe(200);
    expect(((await read.json()) as any).content).toContain('Line 2998 of a long Markdown result.');
  });
});
