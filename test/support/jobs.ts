import { type JobCommand, type StartJobRequest } from '../../domain/jobs/decide.ts';
import { fold } from '../../domain/shared/decider.ts';
import { tenantDecider } from '../../domain/tenants/decide.ts';
import type { TenantEvent } from '../../domain/tenants/events.ts';
import { defaultSettings } from '../../domain/tenants/settings.ts';

/** The tenant, start and mint the job decider's tests share: plugin notes (agent scribe) granted search and mail/send. */
export const tenantEvents: TenantEvent[] = [
  {
    type: 'TenantCreated',
    data: { tenant: 'acme', settings: { ...defaultSettings(), grants: { notes: ['plugin:search', 'tool:mail/send'] } }, authority_epoch: 1, created_ms: 0 },
  },
  {
    type: 'PluginInstalled',
    data: {
      tenant: 'acme',
      name: 'notes',
      install_gen: 1,
      scopes: ['agent', 'tenant'],
      functions: ['save', 'boot'],
      agents: ['scribe'],
      startup: 'boot',
      installed_ms: 0,
    },
  },
  {
    type: 'PluginInstalled',
    data: { tenant: 'acme', name: 'search', install_gen: 3, scopes: ['tenant'], functions: ['find'], agents: ['seeker'], startup: null, installed_ms: 0 },
  },
];
export const tenant = fold(tenantDecider, tenantEvents);

export const request: StartJobRequest = { agent: 'scribe', plugin: 'notes', subject: 'ticket-1', input: 'summarise this', labels: ['b', 'a', 'a'] };
export const mac = (input: string) => `mac(${input.length})`;
export const start = (r: StartJobRequest = request, now = 1000): JobCommand => ({ type: 'StartJob', tenant, job: 'j1', request: r, parent: null, mac, now });
export const mint = (over: Partial<Extract<JobCommand, { type: 'MintCall' }>> = {}): JobCommand => ({
  type: 'MintCall',
  job: 'j1',
  envelopeValid: true,
  function: 'save',
  startup: false,
  call: 'c1',
  ticketHash: 'h1',
  newIdempotencyKey: 'k1',
  now: 2000,
  ...over,
});
