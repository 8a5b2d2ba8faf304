import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let job: Caller;

const post = async (ticket: string, path: string, body: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

const sentence = (i: number) => `Part ${i} begins here. It goes on about deploys, rotas and the weather in region ${i} for a while. `;
// 40 top-level keys, each a long string: well over the 10,000-token default threshold.
const big = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`part${String(i).padStart(2, '0')}`, sentence(i).repeat(12)]));

/** SPEC §13 "Offloading results". */
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  job = await caller(svc, 'acme', { input: 'results' });
});
afterAll(async () => svc?.stop());

describe('offloaded results', () => {
  let stub: any;

  it('answers inline under the threshold, and a stub over it', async () => {
    expect(await post(job.ticket, '/v1/results', { tool: 'acme.get', content: { small: 'a short answer' } })).toEqual({ status: 200, body: { inline: true } });
    expect(weigh(JSON.stringify(big))).toBeGreaterThan(10_000);
    const r = await post(job.ticket, '/v1/results', { tool: 'acme.get', content: big });
    expect(r.status).toBe(200);
    stub = r.body;
    expect(stub.offloaded).toMatchObject({ kind: 'json', size: Buffer.byteLength(JSON.stringify(big)), tokens: weigh(JSON.stringify(big)), lines: 42 });
    expect(stub.offloaded.ref).toMatch(/^oz0-file:sha256:[0-9a-f]{64}$/);
    expect(stub.outline).toContain('part00');
    expect(weigh(stub.outline)).toBeLessThanOrEqual(1000);
    expect(stub.note).toContain('acme.get');
    // The same content always gives the same stub.
    expect((await post(job.ticket, '/v1/results', { tool: 'acme.get', content: big })).body).toEqual(stub);
  });

  it('reads it back by section', async () => {
    const r = await post(job.ticket, '/v1/results/read', { ref: stub.offloaded.ref, section: 'part07', budget: 2000 });
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('json');
    expect(r.body.fit).toMatchObject({ view: 'section', budget: 2000 });
    expect(r.body.content).toContain('"part07"');
    expect(r.body.content).toContain(sentence(7));
    expect(r.body.content).not.toContain('"part08"');
    expect(r.body.content).not.toContain('"part06"');
  });

  it('reads it back by line range, in the one-line-per-value form', async () => {
    const r = await post(job.ticket, '/v1/results/read', { ref: stub.offloaded.ref, range: '3-5', budget: 4000 });
    expect(r.status).toBe(200);
    expect(r.body.fit.view).toBe('section');
    // Line 1 is "{", line 2 part00: lines 3-5 are part01 to part03.
    for (const k of ['part01', 'part02', 'part03']) expect(r.body.content).toContain(`"${k}"`);
    for (const k of ['part00', 'part04']) expect(r.body.content).not.toContain(`"${k}"`);
  });

  it('a budget too small for the section falls to a smaller view, never a bigger one', async () => {
    const r = await post(job.ticket, '/v1/results/read', { ref: stub.offloaded.ref, section: 'part07', budget: 60 });
    expect(r.status).toBe(200);
    expect(['summary', 'stub']).toContain(r.body.fit.view);
    expect(r.body.fit.tokens).toBeLessThanOrEqual(60);
  });

  it('only the job tree that produced it reads it', async () => {
    const other = await caller(svc, 'acme', { input: 'results' });
    expect(await post(other.ticket, '/v1/results/read', { ref: stub.offloaded.ref })).toEqual({
      status: 404,
      body: { error: 'not_found', message: expect.any(String) },
    });
  });

  it('refuses content over 31 MiB as UTF-8 JSON and a read with an unknown field', async () => {
    const huge = JSON.stringify({ tool: 'acme.get', content: 'x'.repeat((31 << 20) + 1) });
    expect(await post(job.ticket, '/v1/results', huge)).toMatchObject({ status: 413, body: { error: 'result_too_large' } });
    expect(await post(job.ticket, '/v1/results/read', { ref: stub.offloaded.ref, lines: '1-2' })).toMatchObject({ status: 400, body: { error: 'invalid' } });
  });
});
