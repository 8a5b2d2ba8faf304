import { describe, expect, it } from 'vitest';
import { jobDecider, type JobCommand } from '../../../domain/jobs/decide.ts';
import { startupTargets } from '../../../domain/startup/plugins.ts';
import { fold } from '../../../domain/shared/decider.ts';
import { tenantDecider } from '../../../domain/tenants/decide.ts';
import type { TenantEvent } from '../../../domain/tenants/events.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import { specify } from '../../support/decider.ts';

const install = (name: string, startup: string | null): TenantEvent => ({
  type: 'PluginInstalled',
  data: { tenant: 'acme', name, install_gen: 1, scopes: ['tenant'], functions: ['boot', 'find'], agents: ['a'], startup, installed_ms: 0 },
});
const tenantWith = (grants: string[]) =>
  fold(tenantDecider, [
    { type: 'TenantCreated', data: { tenant: 'acme', settings: { ...defaultSettings(), grants: { home: grants } }, authority_epoch: 1, created_ms: 0 } },
    install('home', 'boot'),
    install('search', 'boot'),
    install('maps', 'boot'),
    install('quiet', null),
  ]);

const { given } = specify(jobDecider);
const startedIn = (tenant: ReturnType<typeof tenantWith>) =>
  given([])
    .when({ type: 'StartJob', tenant, job: 'j1', request: { agent: 'a', plugin: 'home', subject: 's', input: 'x' }, parent: null, mac: () => 'm', now: 1 })
    .accepted();
const mints = [1, 2, 3, 4].map((i) => ({ call: `c${i}`, ticketHash: `h${i}`, idempotencyKey: `k${i}` }));
const prepare = (tenant: ReturnType<typeof tenantWith>): JobCommand => ({
  type: 'PrepareStartup',
  job: 'j1',
  tenant,
  budget: 300,
  envelopeValid: true,
  mints,
  now: 2,
});

describe('start-up text: a plugin the agent reaches through a tool:<plugin>/<fn> grant adds its text', () => {
  it('a tool grant of a function other than the start-up one reaches the plugin, in grant order', () => {
    const grants = ['tool:search/find', 'tool:quiet/find', 'plugin:maps'];
    const tenant = tenantWith(grants);
    if (!tenant.exists) throw new Error('no tenant');
    const started = startedIn(tenant);
    const job = fold(jobDecider, started);
    if (!job.exists) throw new Error('no job');
    expect(startupTargets(job.start, grants, tenant.plugins)).toEqual([
      { plugin: 'home', function: 'boot' },
      { plugin: 'search', function: 'search/boot' },
      { plugin: 'maps', function: 'maps/boot' },
    ]);
    const events = given(started).when(prepare(tenant)).accepted();
    expect(events.filter((e) => e.type === 'CallMinted').map((e) => [e.data.function, e.data.startup])).toEqual([
      ['boot', true],
      ['search/boot', true],
      ['maps/boot', true],
    ]);
  });

  it("a tool grant does not open the plugin's other functions to ordinary calls", () => {
    const tenant = tenantWith(['tool:search/find']);
    const started = startedIn(tenant);
    const mint = (fn: string, startup: boolean): JobCommand => ({
      type: 'MintCall',
      job: 'j1',
      envelopeValid: true,
      function: fn,
      startup,
      startupOf: (plugin) => (plugin === 'home' || plugin === 'search' ? 'boot' : null),
      call: 'c9',
      ticketHash: 'h',
      newIdempotencyKey: 'k',
      now: 3,
    });
    given(started)
      .when(mint('search/boot', false))
      .then(expect.objectContaining({ error: 'scope' }));
    expect(given(started).when(mint('search/boot', true)).accepted()[0]).toMatchObject({
      type: 'CallMinted',
      data: { function: 'search/boot', startup: true },
    });
    given(started)
      .when(mint('maps/boot', true))
      .then(expect.objectContaining({ error: 'scope' }));
  });
});
