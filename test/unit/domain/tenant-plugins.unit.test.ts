import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { specify } from '../../support/decider.ts';
import { tenantDecider } from '../../../domain/tenants/decide.ts';
import type { TenantCommand } from '../../../domain/tenants/decide.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import { startScopes } from '../../../domain/jobs/scopes.ts';
import { openSnapshot, sealSnapshot } from '../../../domain/shared/sealed-snapshot.ts';
import { keyedParts, PartStub } from '../../../domain/shared/keyed.ts';
import { packTenant, unpackTenant } from '../../../domain/tenants/snapshot.ts';
import { evolveTenant, foldTenant, initialTenantState, tenantView, type TenantState, type TenantStreamEvent } from '../../../domain/tenants/state.ts';

const { given } = specify(tenantDecider);
const macOf = (input: string) => createHmac('sha256', 'tenant key').update(input).digest('base64url');

const created: TenantStreamEvent = { type: 'TenantCreated', data: { tenant: 'acme', settings: defaultSettings(), authority_epoch: 1, created_ms: 1 } };
const installed = (name: string, gen = 1, request_id?: string): TenantStreamEvent => ({
  type: 'PluginInstalled',
  data: {
    tenant: 'acme',
    name,
    install_gen: gen,
    scopes: ['tenant'],
    functions: ['f'],
    agents: ['a'],
    startup: null,
    installed_ms: gen,
    ...(request_id === undefined ? {} : { request_id }),
  },
});
const removed = (epoch: number, names: string[], request_id?: string): TenantStreamEvent => ({
  type: 'RevocationBatchApplied',
  data: {
    tenant: 'acme',
    epoch,
    items: names.map((plugin) => ({ kind: 'plugin_removed' as const, plugin })),
    revocations: names.map((plugin) => ({ kind: 'plugin_removed' as const, plugin })),
    grants: {},
    people: {},
    start_roles: [],
    start_teams: [],
    removed_plugins: names,
    applied_ms: 9,
    ...(request_id === undefined ? {} : { request_id }),
  },
});
const install = (name: string): TenantCommand => ({ type: 'InstallPlugin', tenant: 'acme', name, functions: ['f'], agents: ['a'], now: 5 });

type Existing = Extract<TenantState, { exists: true }>;
const existing = (s: TenantState): Existing => {
  if (!s.exists) throw new Error('no tenant');
  return s;
};
const folded = (events: TenantStreamEvent[]) => existing(foldTenant(initialTenantState(), events));
const withPlugins = (n: number) => [created, ...Array.from({ length: n }, (_, i) => installed(`p${i}`, 1, `req-${i}`))];
const names = (s: Existing) => tenantView(s).plugins.map((p) => p.name);
/** What a state answers, whatever shape its tries have: its view and every map's entries. */
const answers = (s: Existing) => ({
  view: tenantView(s),
  install_gens: Object.fromEntries(s.install_gens.entries()),
  requests: Object.fromEntries(s.requests.entries()),
});

describe("a tenant's plugins, install generations and answered requests are persistent maps", () => {
  it("an install does not copy the tenant's other plugins", () => {
    const before = folded(withPlugins(300));
    const text = JSON.stringify(before);
    const after = existing(evolveTenant(before, installed('new', 1, 'req-new')));
    // The state evolved from still answers as it did: its maps were not written to.
    expect(JSON.stringify(before)).toBe(text);
    expect([before.plugins.size, before.plugins.has('new'), before.requests.has('req-new'), before.plugins.get('p7')?.name]).toEqual([300, false, false, 'p7']);
    expect([after.plugins.size, after.plugins.get('new')?.install_gen, after.install_gens.get('new'), after.requests.get('req-new')?.kind]).toEqual([
      301,
      1,
      1,
      'plugin',
    ]);
    // Only the path to the new name is new: the other top-level slots are the very same arrays.
    for (const map of ['plugins', 'install_gens', 'requests', 'plugin_order'] as const) {
      const shared = after[map].map.root.filter((slot, i) => slot === before[map].map.root[i]).length;
      expect(shared, map).toBe(15);
    }
    expect(after.holds).toBe(before.holds);
  });

  it('a removal takes out only the plugins it names, and keeps their highest generation', () => {
    const before = folded(withPlugins(300));
    const after = existing(evolveTenant(before, removed(2, ['p3', 'p200'])));
    expect([after.plugins.size, after.plugins.has('p3'), after.plugins.has('p200'), after.plugins.get('p4')?.name]).toEqual([298, false, false, 'p4']);
    expect([after.install_gens.get('p3'), after.plugin_order.has('p3')]).toEqual([1, false]);
    expect([before.plugins.size, before.plugins.has('p3')]).toEqual([300, true]);
    expect(names(after)).toEqual(names(before).filter((n) => n !== 'p3' && n !== 'p200'));
  });

  it('a batch that removes no plugin keeps the maps it had', () => {
    const before = folded(withPlugins(10));
    const after = existing(evolveTenant(before, removed(2, [])));
    expect([after.plugins, after.plugin_order]).toEqual([before.plugins, before.plugin_order]);
    expect(after.plugins).toBe(before.plugins);
  });
});

describe("a tenant's view lists its plugins as a plain object of them did", () => {
  const name = fc.constantFrom('0', '2', '10', '01', '-1', '1.5', '4294967294', '4294967295', '__proto__', 'constructor', 'toString', 'a', 'b', 'notes');
  const op = fc.oneof(
    name.map((n) => ({ install: n })),
    name.map((n) => ({ remove: n })),
  );

  it('array-index names first, ascending; then the rest in the order they joined, an upgrade keeping its place, a reinstall going last', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        // The model: the plain object the state kept before (defined, so `__proto__` is a key).
        const model: Record<string, true> = {};
        const events: TenantStreamEvent[] = [created];
        let epoch = 1;
        for (const o of ops) {
          if ('install' in o) {
            Object.defineProperty(model, o.install, { value: true, enumerable: true, writable: true, configurable: true });
            events.push(installed(o.install));
          } else {
            delete model[o.remove];
            events.push(removed(++epoch, [o.remove]));
          }
        }
        const state = folded(events);
        expect(names(state)).toEqual(Object.keys(model));
        expect(names(existing(events.reduce<TenantState>(evolveTenant, initialTenantState())))).toEqual(Object.keys(model));
        // And the order survives a snapshot.
        expect(names(existing(unpackTenant(packTenant({ state, batches: [], position: 1 }, 'tenant:acme', 1, macOf), 'tenant:acme', 1, macOf)!.state))).toEqual(
          Object.keys(model),
        );
      }),
    );
  });
});

describe('a plugin named like a prototype property is a plain name', () => {
  it('a grant of one not installed reaches the grant alone (a plain object answered Object.prototype for it)', () => {
    const s = folded([created, installed('notes')]);
    const notes = s.plugins.get('notes')!;
    expect(startScopes(notes, ['plugin:constructor', 'plugin:__proto__'], s.plugins)).toEqual([
      'agent:notes/a',
      'plugin:__proto__',
      'plugin:constructor',
      'plugin:notes',
      'tool:notes/f',
    ]);
  });
});

describe('installs decided on persistent maps', () => {
  it('given a plugin named like a prototype property removed, when installed again, then it takes a generation never used', () => {
    given([created, installed('constructor'), removed(2, ['constructor'])])
      .when(install('constructor'))
      .then([expect.objectContaining({ type: 'PluginInstalled', data: expect.objectContaining({ name: 'constructor', install_gen: 2 }) })]);
  });

  it('given no plugin named like a prototype property, when one is installed, then it is generation 1 and an upgrade keeps it', () => {
    given([created])
      .when(install('toString'))
      .then([expect.objectContaining({ data: expect.objectContaining({ name: 'toString', install_gen: 1 }) })]);
    given([created, installed('__proto__')])
      .when(install('__proto__'))
      .then([expect.objectContaining({ data: expect.objectContaining({ name: '__proto__', install_gen: 1 }) })]);
  });
});

describe('tenant snapshots of persistent maps', () => {
  /** A format-1 snapshot's text, as the build at e17122b wrote it for `history`. */
  const FORMAT_1 =
    '{"state":{"exists":true,"id":"acme","settings":{"default_end_days":90,"max_end_days":365,"caps":{"records":5000,"bytes":8388608},"retention_days":365,"person_memory":[],"person_shared_scopes":[],"compatible_purposes":{},"label_walls":[],"grants":{},"start_roles":[],"start_teams":[],"people":{},"max_depth":null},"authority_epoch":2,"settings_version":1,"created_ms":1,"plugins":{"2":{"name":"2","install_gen":1,"scopes":["tenant"],"functions":["f"],"agents":["a"],"startup":null},"10":{"name":"10","install_gen":1,"scopes":["tenant"],"functions":["f"],"agents":["a"],"startup":null},"notes":{"name":"notes","install_gen":1,"scopes":["tenant"],"functions":["f"],"agents":["a"],"startup":null},"__proto__":{"name":"__proto__","install_gen":1,"scopes":["tenant"],"functions":["f"],"agents":["a"],"startup":null},"mail":{"name":"mail","install_gen":2,"scopes":["tenant"],"functions":["f"],"agents":["a"],"startup":null},"zeta":{"name":"zeta","install_gen":1,"scopes":["tenant"],"functions":["f"],"agents":["a"],"startup":null}},"holds":{},"pending_erasures":[],"install_gens":{"2":1,"10":1,"notes":1,"__proto__":1,"mail":2,"zeta":1},"killed_agents":[],"revoked_keys":[],"requests":{"r1":{"kind":"plugin","plugin":{"name":"notes","install_gen":1,"scopes":["tenant"],"functions":["f"],"agents":["a"],"startup":null},"digest":"a894eb85d6f2a12582320a8048137e86b06453ec4010927f1462e339d491fd87"},"constructor":{"kind":"plugin","plugin":{"name":"__proto__","install_gen":1,"scopes":["tenant"],"functions":["f"],"agents":["a"],"startup":null},"digest":"201d9c9abb78e3d4447f74c0d2398aa48004c9ab0d9e7341d382f6c689e35940"},"b1":{"kind":"revocations","epoch":2,"digest":"d97457e0e3dcea849bf49664520092ececd7ef5e027b81633ecdcac54c869126"}},"receipts":{}},"batches":[{"epoch":2,"revocations":[{"kind":"plugin_removed","plugin":"mail"}]}],"position":41}';
  /** The history FORMAT_1 was folded from, under the settings it holds (defaults may change since). */
  const settings = (JSON.parse(FORMAT_1) as { state: { settings: typeof created.data.settings } }).state.settings;
  const history: TenantStreamEvent[] = [
    { type: 'TenantCreated', data: { ...created.data, settings } },
    installed('notes', 1, 'r1'),
    installed('10'),
    installed('__proto__', 1, 'constructor'),
    installed('mail'),
    installed('2'),
    installed('notes'),
    removed(2, ['mail'], 'b1'),
    installed('mail', 2),
    installed('zeta'),
  ];
  const batches = [{ epoch: 2, revocations: [{ kind: 'plugin_removed' as const, plugin: 'mail' }] }];

  it('given a format-1 snapshot text, when opened, then it is the state the same events fold to', () => {
    const back = unpackTenant(sealSnapshot('tenant-snapshot', '1', FORMAT_1, 'tenant:acme', 9, macOf), 'tenant:acme', 9, macOf);
    expect(back).not.toBeNull();
    const fold = folded(history);
    expect(answers(existing(back!.state))).toEqual(answers(fold));
    expect([back!.batches, back!.position]).toEqual([batches, 41]);
    expect(names(fold)).toEqual(['2', '10', 'notes', '__proto__', 'mail', 'zeta']);
    // What is installed next lists last from the upcast state as from the fold.
    const next = installed('omega');
    expect(answers(existing(evolveTenant(back!.state, next)))).toEqual(answers(existing(evolveTenant(fold, next))));
  });

  it('given a format-1 snapshot text under another MAC, when opened, then it is not used', () => {
    const other = (i: string) => createHmac('sha256', 'another key').update(i).digest('base64url');
    expect(unpackTenant(sealSnapshot('tenant-snapshot', '1', FORMAT_1, 'tenant:acme', 9, other), 'tenant:acme', 9, macOf)).toBeNull();
  });

  it('given a snapshot of many plugins, when a cold state looks up one, then only the part it lives in is decoded', () => {
    const state = folded(withPlugins(2_000));
    const back = existing(unpackTenant(packTenant({ state, batches, position: 41 }, 'tenant:acme', 9, macOf), 'tenant:acme', 9, macOf)!.state);
    const stillText = () => keyedParts(back.plugins.map).filter(([, part]) => part instanceof PartStub && part.text !== null).length;
    const parts = keyedParts(back.plugins.map).length;
    expect(stillText()).toBe(parts);
    expect(back.plugins.get('p1234')).toEqual(state.plugins.get('p1234'));
    expect(stillText()).toBe(parts - 1);
    // Every other part decodes when looked into, and the whole map answers as the fold's.
    expect(answers(back)).toEqual(answers(state));
    expect(stillText()).toBe(0);
  });

  it('given a format-2 text under its MAC with a part line twice or an address not a number, when opened, then it is not used', () => {
    const state = folded(withPlugins(40));
    const text = openSnapshot(packTenant({ state, batches, position: 41 }, 'tenant:acme', 9, macOf), 'tenant-snapshot', '2', 'tenant:acme', 9, macOf)!;
    const lines = text.split('\n');
    const reseal = (ls: string[]) => sealSnapshot('tenant-snapshot', '2', ls.join('\n'), 'tenant:acme', 9, macOf);
    expect(unpackTenant(reseal(lines), 'tenant:acme', 9, macOf)).not.toBeNull();
    expect(unpackTenant(reseal([...lines, lines[1]!]), 'tenant:acme', 9, macOf)).toBeNull();
    const [map, , json] = lines[1]!.split('\t');
    expect(unpackTenant(reseal([lines[0]!, `${map}\t\t${json}`, ...lines.slice(2)]), 'tenant:acme', 9, macOf)).toBeNull();
    expect(unpackTenant(reseal([lines[0]!, `${map}\t-1\t${json}`, ...lines.slice(2)]), 'tenant:acme', 9, macOf)).toBeNull();
  });

  it('given a tenant with removals, when packed and read back, then it answers as before', () => {
    const state = folded(history);
    const back = unpackTenant(packTenant({ state, batches, position: 41 }, 'tenant:acme', 9, macOf), 'tenant:acme', 9, macOf);
    expect(answers(existing(back!.state))).toEqual(answers(state));
    expect(existing(back!.state).plugin_seq).toBe(state.plugin_seq);
  });
});
