import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;

const offload = async (ticket: string, content: unknown) => {
  const res = await fetch(`${svc.url}/v1/results`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'acme.get', content }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

// About 3,000 tokens: inline under the default 10,000, offloaded under a 2,000 threshold.
const medium = Array.from({ length: 160 }, (_, i) => `Line ${i} says something about the deploy of service ${i} and its rota.`).join('\n');

/** SPEC §13: the job's `offload` within the tenant's `offload_ceiling`, else `offload_tokens`, else 10,000. */
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  expect(weigh(medium)).toBeGreaterThan(2000);
  expect(weigh(medium)).toBeLessThan(10_000);
});
afterAll(async () => svc?.stop());

describe('offload settings', () => {
  it('a job with no setting under a tenant with none reads 10,000 inline', async () => {
    const job = await caller(svc, 'acme', { input: 'default' });
    expect((await offload(job.ticket, medium)).body).toEqual({ inline: true });
  });

  it("a job's own offload sets its threshold; off keeps everything inline", async () => {
    const low = await caller(svc, 'acme', { input: 'low', start: { offload: 2000 } });
    const r = await offload(low.ticket, medium);
    expect(r.body.offloaded.kind).toBe('text');
    expect(r.body.note).toContain('more than the 2000 tokens');
    const off = await caller(svc, 'acme', { input: 'off', start: { offload: 'off' } });
    expect((await offload(off.ticket, medium.repeat(5))).body).toEqual({ inline: true });
  });

  it("the tenant's offload_tokens is the default; its ceiling bounds a job's offload, and a job keeps the threshold it started with", async () => {
    expect((await svc.admin('PATCH', '/v1/tenants/acme', { offload_tokens: 2000 })).status).toBe(200);
    const byTenant = await caller(svc, 'acme', { input: 'tenant default' });
    expect((await offload(byTenant.ticket, medium)).body.note).toContain('more than the 2000 tokens');

    expect((await svc.admin('PATCH', '/v1/tenants/acme', { offload_tokens: null, offload_ceiling: 2500 })).status).toBe(200);
    const high = await caller(svc, 'acme', { input: 'high', start: { offload: 50_000 } });
    expect((await offload(high.ticket, medium)).body.note).toContain('more than the 2500 tokens');
    const off = await caller(svc, 'acme', { input: 'off under ceiling', start: { offload: 'off' } });
    expect((await offload(off.ticket, medium)).body.note).toContain('more than the 2500 tokens');

    // Lifting the ceiling later does not change a running job's threshold.
    expect((await svc.admin('PATCH', '/v1/tenants/acme', { offload_ceiling: null })).status).toBe(200);
    expect((await offload(high.ticket, medium)).body.note).toContain('more than the 2500 tokens');
    const fresh = await caller(svc, 'acme', { input: 'fresh', start: { offload: 50_000 } });
    expect((await offload(fresh.ticket, medium)).body).toEqual({ inline: true });
  });

  it('out-of-range values are 400 naming the field and write nothing', async () => {
    const before = await svc.lastPosition();
    for (const [body, field] of [
      [{ offload_tokens: 0 }, 'offload_tokens'],
      [{ offload_ceiling: 2_000_000 }, 'offload_ceiling'],
      [{ offload_tokens: 'lots' }, 'offload_tokens'],
    ] as const) {
      const r = await svc.admin('PATCH', '/v1/tenants/acme', body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid');
      expect(JSON.stringify(r.body)).toContain(field);
    }
    const both = await svc.admin('PATCH', '/v1/tenants/acme', { offload_tokens: 5000, offload_ceiling: 4000 });
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body)).toContain('offload_tokens');
    for (const offloadValue of [0, -5, 1.5, 'none']) {
      const r = await svc.admin('POST', '/v1/tenants/acme/jobs', {
        id: `bad-${String(offloadValue)}`,
        agent: 'scribe',
        plugin: 'notes',
        subject: 's',
        input: 'x',
        offload: offloadValue,
      });
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toContain('offload');
    }
    expect(await svc.lastPosition()).toBe(before);
  });
});
