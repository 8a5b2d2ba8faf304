import { describe, expect, it } from 'vitest';
import { jobDecider, type JobCommand } from '../../../domain/jobs/decide.ts';
import { fold } from '../../../domain/shared/decider.ts';
import { tenantDecider } from '../../../domain/tenants/decide.ts';
import type { TenantEvent } from '../../../domain/tenants/events.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import { specify } from '../../support/decider.ts';

const install = (name: string, startup: string | null): TenantEvent => ({
  type: 'PluginInstalled',
  data: { tenant: 'acme', name, install_gen: 1, scopes: ['tenant'], functions: ['boot', 'find'], agents: ['a'], startup, installed_ms: 0 },
});
const tenant = fold(tenantDecider, [
  {
    type: 'TenantCreated',
    data: {
      tenant: 'acme',
      settings: { ...defaultSettings(), grants: { home: ['plugin:b', 'plugin:none', 'plugin:a', 'tool:c/find', 'plugin:d', 'plugin:e'] } },
      authority_epoch: 1,
      created_ms: 0,
    },
  },
  install('home', 'boot'),
  ...['a', 'b', 'c', 'd', 'e'].map((p) => install(p, 'boot')),
  install('none', null),
]);

const { given } = specify(jobDecider);
const started = given([])
  .when({ type: 'StartJob', tenant, job: 'j1', request: { agent: 'a', plugin: 'home', subject: 's', input: 'x' }, parent: null, mac: () => 'm', now: 1 })
  .accepted();
const mints = [1, 2, 3, 4].map((i) => ({ call: `c${i}`, ticketHash: `h${i}`, idempotencyKey: `k${i}` }));
const prepare = (over: Partial<Extract<JobCommand, { type: 'PrepareStartup' }>> = {}): JobCommand => ({
  type: 'PrepareStartup',
  job: 'j1',
  tenant,
  budget: 300,
  envelopeValid: true,
  mints,
  now: 2,
  ...over,
});

describe('job decider: start-up', () => {
  it('given grants to five start-up plugins, when prepared, then four calls: own first, then in grant order', () => {
    const events = given(started).when(prepare()).accepted();
    const minted = events.filter((e) => e.type === 'CallMinted').map((e) => e.data);
    expect(minted.map((d) => [d.function, d.startup, d.call])).toEqual([
      ['boot', true, 'c1'],
      ['b/boot', true, 'c2'],
      ['a/boot', true, 'c3'],
      ['c/boot', true, 'c4'],
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'StartupPrepared',
      data: { budget: 300, plugins: [{ plugin: 'home' }, { plugin: 'b' }, { plugin: 'a' }, { plugin: 'c' }] },
    });
  });

  it('given a fenced job, when prepared, then refused and nothing is minted', () => {
    given(started)
      .when(prepare({ revokedBy: ['kill'] }))
      .then(expect.objectContaining({ error: 'revoked' }));
  });

  it('given a granted plugin, when its start-up function is minted start-up by hand, then accepted; another of its functions is refused', () => {
    const startupOf = (plugin: string) => (plugin === 'a' || plugin === 'home' ? 'boot' : null);
    const mint = (fn: string): JobCommand => ({
      type: 'MintCall',
      job: 'j1',
      envelopeValid: true,
      function: fn,
      startup: true,
      startupOf,
      call: 'c9',
      ticketHash: 'h',
      newIdempotencyKey: 'k',
      now: 3,
    });
    expect(given(started).when(mint('a/boot')).accepted()[0]).toMatchObject({ type: 'CallMinted', data: { function: 'a/boot', startup: true } });
    given(started)
      .when(mint('a/find'))
      .then(expect.objectContaining({ error: 'invalid', field: 'startup' }));
  });

  it('given a prepared start-up, when text is assembled, then the event has counts and tokens, never the text', () => {
    const prepared = given(started)
      .when(prepare({ budget: 1000 }))
      .accepted();
    const events = given([...started, ...prepared])
      .when({
        type: 'AssembleStartupText',
        job: 'j1',
        answers: [
          { plugin: 'home', text: 'secret plan' },
          { plugin: 'b', error: 'down' },
        ],
        refused: ['a'],
        now: 4,
      })
      .accepted();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'StartupTextAssembled',
      data: {
        kept: [{ plugin: 'home', entries: 1 }],
        left_out: [
          { plugin: 'b', reason: 'failed' },
          { plugin: 'a', reason: 'refused' },
          { plugin: 'c', reason: 'no_answer' },
        ],
      },
    });
    expect(JSON.stringify(events)).not.toContain('secret plan');
  });
});
