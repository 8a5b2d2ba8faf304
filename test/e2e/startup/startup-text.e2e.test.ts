import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
const T = 'boot';

/**
 * SPEC §4 "Start-up text": five plugins could add text to a job; at most four are asked, own
 * plugin first, then granted ones in grant order; entries are kept in order while they fit.
 */
beforeAll(async () => {
  svc = await startTestService();
  // The job's plugin grants four others, in this order; "quiet" declares no start-up function.
  await svc.admin('POST', '/v1/tenants', {
    id: T,
    settings: { grants: { home: ['plugin:delta', 'plugin:quiet', 'plugin:alpha', 'tool:gamma/boot', 'plugin:beta'] } },
  });
  await svc.admin('POST', '/v1/tenants/boot/plugins', { name: 'home', functions: ['work', 'boot'], agents: ['planner'], startup: 'boot' });
  for (const name of ['alpha', 'beta', 'gamma', 'delta'])
    expect((await svc.admin('POST', '/v1/tenants/boot/plugins', { name, functions: ['boot', 'other'], agents: ['a'], startup: 'boot' })).status).toBe(201);
  await svc.admin('POST', '/v1/tenants/boot/plugins', { name: 'quiet', functions: ['x'], agents: ['a'] });
  expect((await svc.admin('POST', '/v1/tenants/boot/jobs', { id: 'j1', agent: 'planner', plugin: 'home', subject: 'user:ann', input: 'go' })).status).toBe(201);
});
afterAll(async () => svc?.stop());

const auditLines = async (kind: string): Promise<any[]> => {
  // The audit log is built behind the answers (a lagging projection): catch it up first.
  await svc.runner.catchUp();
  const res = await fetch(`${svc.url}/v1/tenants/${T}/audit?kind=${kind}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
};

const entries = (plugin: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ text: `${plugin} note ${i + 1}: the deploy window is Wednesday and the on-call rota is posted.` }));

describe('start-up text from five plugins under a small budget', () => {
  let prepared: { plugin: string; function: string; call: string; _meta: any }[];

  it('asks at most four plugins, own first, then granted ones in grant order, each with a start-up ticket', async () => {
    const r = await svc.admin('POST', '/v1/tenants/boot/jobs/j1/startup', { budget: 120 });
    expect(r.status).toBe(200);
    prepared = r.body.plugins;
    expect(prepared.map((p) => p.plugin)).toEqual(['home', 'delta', 'alpha', 'gamma']);
    expect(prepared.map((p) => p.function)).toEqual(['boot', 'delta/boot', 'alpha/boot', 'gamma/boot']);
    for (const p of prepared) expect(p._meta['oz0/records'].ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The tickets are start-up tickets: the granted plugin's function too (minted under the grant).
    const job = await svc.admin('GET', '/v1/tenants/boot/jobs/j1');
    expect(job.status).toBe(200);
    const read = await fetch(prepared[1]!._meta['oz0/records'].url, {
      method: 'POST',
      headers: { authorization: `Bearer ${prepared[1]!._meta['oz0/records'].ticket}`, 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'list', list: {} }),
    });
    expect(read.status).toBe(200);
    expect((await auditLines('startup_read')).map((l) => l.call)).toContain(prepared[1]!.call);
  });

  it('keeps entries in order while they fit, leaves out the failed plugin and names what was left out', async () => {
    const r = await svc.admin('POST', '/v1/tenants/boot/jobs/j1/startup/text', {
      answers: [
        { plugin: 'home', entries: entries('home', 2) },
        { plugin: 'delta', error: 'timed out' },
        { plugin: 'alpha', text: 'alpha: one plain text entry.' },
        { plugin: 'gamma', entries: entries('gamma', 6) },
        { plugin: 'beta', entries: entries('beta', 1) },
      ],
    });
    expect(r.status).toBe(200);
    const { text, kept, left_out, tokens } = r.body;
    expect(tokens).toBe(weigh(text));
    expect(tokens).toBeLessThanOrEqual(120);
    expect(text.startsWith('## Context from plugin home\n\nhome note 1:')).toBe(true);
    expect(text.match(/^## Context from plugin /gm)!.length).toBeLessThanOrEqual(4);
    expect(text).not.toContain('delta');
    expect(text).not.toContain('beta');
    expect(kept[0]).toEqual({ plugin: 'home', entries: 2 });
    expect(kept.map((k: any) => k.plugin)).toEqual(['home', 'alpha', 'gamma']);
    const gammaKept = kept.find((k: any) => k.plugin === 'gamma').entries;
    expect(gammaKept).toBeGreaterThan(0);
    expect(gammaKept).toBeLessThan(6);
    // Cut in order: the kept gamma entries are its first ones.
    for (let i = 1; i <= gammaKept; i++) expect(text).toContain(`gamma note ${i}:`);
    expect(text).not.toContain(`gamma note ${gammaKept + 1}:`);
    expect(left_out).toEqual([
      { plugin: 'delta', entries: 0, reason: 'failed' },
      { plugin: 'gamma', entries: 6 - gammaKept, reason: 'budget' },
      { plugin: 'beta', entries: 1, reason: 'not_asked' },
    ]);

    const lines = await auditLines('startup_text');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ kind: 'startup_text', job: 'j1', plugins: ['home', 'delta', 'alpha', 'gamma'], kept, left_out, tokens });
    // Never the text.
    expect(JSON.stringify(lines[0])).not.toContain('deploy window');
  });

  it('a job of a plugin without grants asks only its own plugin; text before a start-up is refused', async () => {
    expect((await svc.admin('POST', '/v1/tenants/boot/jobs', { id: 'j2', agent: 'a', plugin: 'alpha', subject: 'user:ann', input: 'go' })).status).toBe(201);
    const early = await svc.admin('POST', '/v1/tenants/boot/jobs/j2/startup/text', { answers: [] });
    expect(early.status).toBe(400);
    expect(early.body).toMatchObject({ error: 'invalid', field: 'startup' });
    const r = await svc.admin('POST', '/v1/tenants/boot/jobs/j2/startup', { budget: 500 });
    expect(r.body.plugins.map((p: any) => p.function)).toEqual(['boot']);
    // A granted plugin's start-up function is minted start-up by hand too; another of its functions is not.
    const j1 = '/v1/tenants/boot/jobs/j1/calls';
    expect((await svc.admin('POST', j1, { function: 'alpha/boot', startup: true })).body.call).toMatchObject({ function: 'alpha/boot', startup: true });
    expect((await svc.admin('POST', j1, { function: 'alpha/other', startup: true })).body).toMatchObject({ error: 'invalid', field: 'startup' });
    expect((await svc.admin('POST', '/v1/tenants/boot/jobs/nope/startup', { budget: 500 })).status).toBe(404);
    expect((await svc.admin('POST', '/v1/tenants/boot/jobs/j2/startup', { budget: -1 })).status).toBe(400);
  });
});
