import { describe, expect, it } from 'vitest';
import { jobDecider, type JobCommand } from '../../../domain/jobs/decide.ts';
import { fold } from '../../../domain/shared/decider.ts';
import { tenantDecider } from '../../../domain/tenants/decide.ts';
import type { TenantEvent } from '../../../domain/tenants/events.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import { specify } from '../../support/decider.ts';

/**
 * Rule: a plugin named like a prototype property (`constructor`, `__proto__`: the API's plugin
 * names [a-z0-9_-] accept both) is a plain name in the tenant's grants too. With no grants of
 * its own, its jobs start with its own scopes alone; a grant object's inherited members are no
 * grants (a plain object answered Object / Object.prototype for them, and startScopes threw:
 * "grants is not iterable", a 500 on every job start of such a plugin).
 */
const { given } = specify(jobDecider);
const installed = (name: string): TenantEvent => ({
  type: 'PluginInstalled',
  data: { tenant: 'acme', name, install_gen: 1, scopes: ['tenant'], functions: ['boot'], agents: ['a'], startup: 'boot', installed_ms: 0 },
});
const tenantWith = (name: string, grants: Record<string, string[]> = {}) =>
  fold(tenantDecider, [
    { type: 'TenantCreated', data: { tenant: 'acme', settings: { ...defaultSettings(), grants }, authority_epoch: 1, created_ms: 0 } },
    installed(name),
    installed('search'),
  ]);
const start = (tenant: ReturnType<typeof tenantWith>, plugin: string): JobCommand => ({
  type: 'StartJob',
  tenant,
  job: 'j1',
  request: { agent: 'a', plugin, subject: 's', input: 'x' },
  parent: null,
  mac: () => 'm',
  now: 1,
});

describe('a plugin named like a prototype property has only the grants the tenant gave it', () => {
  for (const name of ['constructor', '__proto__']) {
    it(`a job of plugin ${name}, with no grants, starts with its own scopes and prepares its own start-up alone`, () => {
      const tenant = tenantWith(name);
      const started = given([]).when(start(tenant, name)).accepted();
      const job = fold(jobDecider, started);
      if (!job.exists) throw new Error('no job');
      expect(job.start.scopes).toEqual([`agent:${name}/a`, `plugin:${name}`, `tool:${name}/boot`]);
      const events = given(started)
        .when({
          type: 'PrepareStartup',
          job: 'j1',
          tenant,
          budget: 300,
          envelopeValid: true,
          mints: [{ call: 'c1', ticketHash: 'h1', idempotencyKey: 'k1' }],
          now: 2,
        })
        .accepted();
      expect(events.filter((e) => e.type === 'CallMinted').map((e) => e.data.function)).toEqual(['boot']);
    });

    it(`a job of plugin ${name} granted plugin:search reaches search`, () => {
      const tenant = tenantWith(name, Object.fromEntries([[name, ['plugin:search']]]));
      const job = fold(jobDecider, given([]).when(start(tenant, name)).accepted());
      if (!job.exists) throw new Error('no job');
      expect(job.start.scopes).toContain('tool:search/boot');
    });
  }
});
