import { describe, expect, it } from 'vitest';
import { specify } from '../../support/decider.ts';
import { tenantDecider } from '../../../domain/tenants/decide.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import { evolveTenant, foldTenant, initialTenantState, type TenantState, type TenantStreamEvent } from '../../../domain/tenants/state.ts';

const { given } = specify(tenantDecider);

const created: TenantStreamEvent = { type: 'TenantCreated', data: { tenant: 'acme', settings: defaultSettings(), authority_epoch: 1, created_ms: 1 } };
const installed = (name: string, gen: number, request_id?: string): TenantStreamEvent => ({
  type: 'PluginInstalled',
  data: {
    tenant: 'acme',
    name,
    install_gen: gen,
    scopes: ['project'],
    functions: ['save'],
    agents: ['scribe'],
    startup: null,
    installed_ms: gen,
    ...(request_id === undefined ? {} : { request_id }),
  },
});
const hold = (id: string): TenantStreamEvent => ({
  type: 'HoldPlaced',
  data: { tenant: 'acme', hold: id, selector: { tenant: true }, reason: 'audit', placed_ms: 1 },
});

/** A long tenant history: installs (some reinstalled, some answering a request id), holds, a kill, a released hold. */
const history = (): TenantStreamEvent[] => {
  const events: TenantStreamEvent[] = [created];
  for (let i = 0; i < 300; i++) events.push(installed(`p${i % 120}`, i + 1, i % 3 === 0 ? `req-${i}` : undefined));
  events.push(installed('__proto__', 400, 'constructor'), hold('h1'), hold('h2'));
  const state = events.reduce<TenantState>(evolveTenant, initialTenantState());
  const kill = given(events)
    .when({ type: 'ApplyRevocations', tenant: 'acme', items: [{ kind: 'kill_agent', agent: 'p7/scribe' }], now: 9 })
    .accepted();
  events.push(...(kill as TenantStreamEvent[]), { type: 'HoldReleased', data: { tenant: 'acme', hold: 'h1', released_ms: 10 } }, installed('p7', 500));
  expect(state.exists).toBe(true);
  return events;
};

describe("a tenant's stream folded at once", () => {
  it('given a long history, when folded at once, then the state is the one folded event by event', () => {
    const events = history();
    expect(foldTenant(initialTenantState(), events)).toEqual(events.reduce<TenantState>(evolveTenant, initialTenantState()));
  });

  it('given a state folded so far, when the rest is folded onto it, then the state passed in is left as it was', () => {
    const events = history();
    const half = foldTenant(initialTenantState(), events.slice(0, 150));
    const before = JSON.stringify(half);
    const whole = foldTenant(half, events.slice(150));
    expect(JSON.stringify(half)).toBe(before);
    expect(whole).toEqual(events.reduce<TenantState>(evolveTenant, initialTenantState()));
  });

  it('keeps a plugin or request named like a prototype property as a plain entry', () => {
    const s = foldTenant(initialTenantState(), history());
    if (!s.exists) throw new Error('no tenant');
    expect([s.plugins.get('__proto__')?.name, s.plugins.has('constructor'), s.plugins.has('toString'), s.requests.get('constructor')?.kind]).toEqual([
      '__proto__',
      false,
      false,
      'plugin',
    ]);
  });
});
