import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over label walls (SPEC §3 `label_walls`: pairs of labels that may never meet
 * in one job; §4 Visibility and Labels). Sequential reads hold the wall; these do not.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'walls', settings: { label_walls: [['red', 'blue']] } });
  await svc.admin('POST', '/v1/tenants/walls/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  const red = await caller(svc, 'walls', { labels: ['red'] });
  expect((await red.rec({ op: 'put', scope: 'tenant', record_key: 'red-rec', body: { side: 'red' }, expect: 0 })).status).toBe(200);
  const blue = await caller(svc, 'walls', { labels: ['blue'] });
  expect((await blue.rec({ op: 'put', scope: 'tenant', record_key: 'blue-rec', body: { side: 'blue' }, expect: 0 })).status).toBe(200);
});
afterAll(async () => svc?.stop());

const get = (ticket: string, key: string) => records(svc, ticket, { op: 'get', scope: 'tenant', record_key: key });

describe('a wall under concurrent reads', () => {
  it('never shows one job both sides when two of its calls read red and blue at once', async () => {
    const breaches: string[] = [];
    for (let i = 0; i < 6; i++) {
      const first = await caller(svc, 'walls');
      const minted = await svc.admin('POST', `/v1/tenants/walls/jobs/${first.job}/calls`, { function: 'save' });
      const second: string = minted.body._meta['oz0/records'].ticket;
      const [red, blue] = await Promise.all([get(first.ticket, 'red-rec'), get(second, 'blue-rec')]);
      if (red.body.record && blue.body.record) breaches.push(first.job);
    }
    expect(breaches).toEqual([]);
  });

  it('never shows one call both sides when it sends its two reads at once', async () => {
    const breaches: string[] = [];
    for (let i = 0; i < 6; i++) {
      const c = await caller(svc, 'walls');
      const [red, blue] = await Promise.all([get(c.ticket, 'red-rec'), get(c.ticket, 'blue-rec')]);
      if (red.body.record && blue.body.record) breaches.push(c.job);
    }
    expect(breaches).toEqual([]);
  });
});

describe('a wall at a start', () => {
  it('refuses a job that would start holding both labels of a wall', async () => {
    const r = await svc.admin('POST', '/v1/tenants/walls/jobs', { agent: 'scribe', plugin: 'notes', subject: 's', input: 'x', labels: ['red', 'blue'] });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it("refuses a child that adds the far side of a wall to its parent's labels", async () => {
    const parent = await caller(svc, 'walls', { labels: ['red'] });
    const r = await svc.admin('POST', '/v1/tenants/walls/jobs', { agent: 'scribe', plugin: 'notes', subject: 's', parent: parent.job, labels: ['blue'] });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });
});

describe('a wall against a guessing writer (SPEC §4 check 11 is silent on walls; §4 Visibility withholds the far side)', () => {
  it('does not tell a blue job the key of a red record whose dedupe text it guessed', async () => {
    const red = await caller(svc, 'walls', { labels: ['red'] });
    expect((await red.rec({ op: 'put', scope: 'tenant', record_key: 'red-deal', body: { a: 1 }, expect: 0, dedupe: 'merger with acme corp' })).status).toBe(
      200,
    );
    const blue = await caller(svc, 'walls', { labels: ['blue'] });
    const probe = await blue.rec({ op: 'put', scope: 'tenant', record_key: 'blue-probe', body: { a: 1 }, expect: 0, dedupe: 'merger with acme corp' });
    // A read of red-deal by this job is withheld; a refusal must not hand over what the read withholds.
    expect(JSON.stringify(probe.body)).not.toContain('red-deal');
  });
});
