import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let root: Caller;
let red: Caller;
let blue: Caller;

const post = async (ticket: string, path: string, body: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const labelsOf = async (job: string) => (await svc.admin('GET', `/v1/tenants/acme/jobs/${job}`)).body.job.labels as string[];

const big = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`part${i}`, `Part ${i} is about the red project. `.repeat(40)]));

/** SPEC §13: an offloaded result keeps its labels; reading joins them, and across a wall it is withheld. */
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme', settings: { label_walls: [['red', 'blue']] } });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  // One tree: a root without labels, a child holding red, another holding blue.
  root = await caller(svc, 'acme', { input: 'labels' });
  red = await caller(svc, 'acme', { input: 'labels', start: { parent: root.job }, labels: ['red'] });
  blue = await caller(svc, 'acme', { input: 'labels', start: { parent: root.job }, labels: ['blue'] });
});
afterAll(async () => svc?.stop());

describe('labels on offloaded files', () => {
  let ref: string;

  it('a result offloaded by a job holding red carries red', async () => {
    expect(await labelsOf(red.job)).toEqual(['red']);
    const r = await post(red.ticket, '/v1/results', { tool: 'acme.get', content: big });
    expect(r.status).toBe(200);
    ref = r.body.offloaded.ref;
    const { rows } = await svc.pool.query<{ data: { labels?: string[] } }>("SELECT data FROM custodian_events WHERE type = 'FileStored'");
    expect(rows.map((e) => e.data.labels)).toEqual([['red']]);
  });

  it('a job of the tree across the wall (blue) is withheld 403, and nothing is joined', async () => {
    const before = await svc.lastPosition();
    const r = await post(blue.ticket, '/v1/results/read', { ref, section: 'part3' });
    expect(r).toEqual({ status: 403, body: { error: 'withheld', message: expect.any(String) } });
    const raw = await fetch(`${svc.url}/v1/files/${ref}`, { headers: { authorization: `Bearer ${blue.ticket}` } });
    expect(raw.status).toBe(403);
    expect(await labelsOf(blue.job)).toEqual(['blue']);
    expect(await svc.lastPosition()).toBe(before);
  });

  it('a job of the tree without the label reads it and joins red', async () => {
    expect(await labelsOf(root.job)).toEqual([]);
    const r = await post(root.ticket, '/v1/results/read', { ref, section: 'part3' });
    expect(r.status).toBe(200);
    expect(r.body.content).toContain('Part 3');
    expect(await labelsOf(root.job)).toEqual(['red']);
    // Joined on the job itself: a child the root starts now cannot take blue (SPEC §4 Labels).
    const child = await svc.admin('POST', '/v1/tenants/acme/jobs', {
      agent: 'scribe',
      plugin: 'notes',
      subject: 's',
      input: 'labels',
      parent: root.job,
      labels: ['blue'],
    });
    expect(child.status).toBe(403);
    expect(child.body.error).toBe('label_wall');
  });

  it('a job that already holds red reads it without a new join', async () => {
    const before = await svc.lastPosition();
    const r = await post(red.ticket, '/v1/results/read', { ref, range: '1-3' });
    expect(r.status).toBe(200);
    expect(await svc.lastPosition()).toBe(before);
  });
});
