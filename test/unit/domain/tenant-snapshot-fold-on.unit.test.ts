import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { decideTenant, type TenantCommand } from '../../../domain/tenants/decide.ts';
import { packTenant, unpackTenant } from '../../../domain/tenants/snapshot.ts';
import { evolveTenant, initialTenantState, tenantView, type TenantState, type TenantStreamEvent } from '../../../domain/tenants/state.ts';
import { startRevoked } from '../../../domain/jobs/sticky.ts';
import { startScopes } from '../../../domain/jobs/scopes.ts';
import { sealSnapshot } from '../../../domain/shared/sealed-snapshot.ts';
import { keyedParts, PartStub } from '../../../domain/shared/keyed.ts';

/**
 * Rule: a tenant folded to any point, packed, opened and folded on answers every command and
 * every look-up as the same history folded without a snapshot, and packs to the same text.
 */

const macOf = (input: string) => createHmac('sha256', 'tenant key').update(input).digest('base64url');
const STREAM = 'tenant:acme';
type Existing = Extract<TenantState, { exists: true }>;

// Names the API accepts ([a-z0-9_-]) and ones only the domain sees (tab, newline: JSON escapes them).
const NAMES = ['0', '01', '2', '10', '4294967294', '4294967295', '__proto__', 'constructor', 'tostring', 'notes', 'mail', 'a\tb', 'a\nb', 'x', 'y-1'];
const REQUEST_IDS = ['r1', 'r2', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '0', 'a\tb\n'];

const nameArb = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 6 }) });
const requestArb = fc.option(fc.constantFrom(...REQUEST_IDS), { nil: undefined, freq: 2 });

type Op =
  | { readonly install: string; readonly fns: number; readonly request_id: string | undefined }
  | { readonly remove: readonly string[]; readonly request_id: string | undefined };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ install: nameArb, fns: fc.integer({ min: 1, max: 2 }), request_id: requestArb }) },
  { weight: 1, arbitrary: fc.record({ remove: fc.array(nameArb, { minLength: 1, maxLength: 3 }), request_id: requestArb }) },
);

const commandOf = (o: Op, now: number): TenantCommand =>
  'install' in o
    ? {
        type: 'InstallPlugin',
        tenant: 'acme',
        name: o.install,
        functions: Array.from({ length: o.fns }, (_, i) => `f${i}`),
        agents: ['a'],
        startup: o.fns > 1 ? 'f1' : undefined,
        request_id: o.request_id,
        now,
      }
    : {
        type: 'ApplyRevocations',
        tenant: 'acme',
        items: o.remove.map((plugin) => ({ kind: 'plugin_removed' as const, plugin })),
        request_id: o.request_id,
        now,
      };

const reopen = (s: TenantState, revision: number): TenantState => {
  const back = unpackTenant(packTenant({ state: s, batches: [], position: revision }, STREAM, revision, macOf), STREAM, revision, macOf);
  if (back === null) throw new Error('a snapshot this build packed did not open');
  return back.state;
};

const existing = (s: TenantState): Existing => {
  if (!s.exists) throw new Error('no tenant');
  return s;
};

const sorted = <V>(entries: Iterable<[string, V]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Everything a state answers: its view, every map's entries, and the look-ups a job start makes for every name. */
const answers = (s: Existing, names: readonly string[]) => ({
  view: JSON.parse(JSON.stringify(tenantView(s))) as unknown,
  plugin_seq: s.plugin_seq,
  sizes: [s.plugins.size, s.plugin_order.size, s.install_gens.size, s.requests.size],
  plugins: sorted(s.plugins.entries()),
  plugin_order: sorted(s.plugin_order.entries()),
  install_gens: sorted(s.install_gens.entries()),
  requests: JSON.parse(JSON.stringify(sorted(s.requests.entries()))) as unknown,
  lookups: names.map((n) => ({
    n,
    has: s.plugins.has(n),
    gen: s.install_gens.get(n) ?? null,
    order: s.plugin_order.get(n) ?? null,
    request: s.requests.get(n)?.kind ?? null,
    sticky: startRevoked(s, { agent: 'a', plugin: n, subject: 'user:u' }),
    scopes: s.plugins.get(n) ? startScopes(s.plugins.get(n)!, [`plugin:${NAMES[0]}`, 'plugin:constructor', 'plugin:__proto__'], s.plugins) : null,
  })),
});

describe('a tenant opened from a snapshot folds on as the fold without one', () => {
  it('any history of installs, upgrades, removals and request ids, reopened at any points, decides, answers and packs the same', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 4 }), fc.array(nameArb, { maxLength: 3 }), (ops, cutsRaw, peeks) => {
        const cuts = new Set(cutsRaw.map((c) => c % (ops.length + 1)));
        const create: TenantCommand = { type: 'CreateTenant', tenant: 'acme', settings: {}, now: 1 };
        const evolveAll = (s: TenantState, d: ReturnType<typeof decideTenant>) => (E.isRight(d) ? d.right.reduce<TenantState>(evolveTenant, s) : s);
        let direct = evolveAll(initialTenantState(), decideTenant(create, initialTenantState()));
        let cut = direct;
        const seen = new Set<string>([...NAMES, ...REQUEST_IDS]);
        // States passed through, with what they answered then: a later evolve must not change them.
        const kept: [TenantState, string][] = [];
        const keep = (s: TenantState) => kept.push([s, JSON.stringify(answers(existing(s), NAMES))]);
        ops.forEach((o, i) => {
          if (cuts.has(i)) {
            keep(cut);
            keep(direct);
            cut = reopen(cut, i + 1);
            keep(cut);
            // Part of it looked into before the next pack: some stubs decoded, others still text.
            for (const p of peeks) existing(cut).plugins.get(p);
            if (i % 2 === 0) cut = reopen(cut, i + 1);
          }
          const c = commandOf(o, i + 2);
          if ('install' in o) seen.add(o.install);
          else o.remove.forEach((n) => seen.add(n));
          const a = decideTenant(c, direct);
          const b = decideTenant(c, cut);
          expect(b).toEqual(a);
          direct = evolveAll(direct, a);
          cut = evolveAll(cut, b);
        });
        if (cuts.has(ops.length)) cut = reopen(cut, ops.length + 1);
        const names = [...seen];
        expect(answers(existing(cut), names)).toEqual(answers(existing(direct), names));
        // A pack of each is the same text, and opened again, answers the same.
        const packOf = (s: TenantState) => packTenant({ state: s, batches: [], position: 9 }, STREAM, 9, macOf);
        expect(packOf(cut)).toBe(packOf(direct));
        expect(answers(existing(reopen(cut, 9)), names)).toEqual(answers(existing(direct), names));
        for (const [s, then] of kept) expect(JSON.stringify(answers(existing(s), NAMES))).toBe(then);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a tenant snapshot whose maps are empty', () => {
  const base = (): Existing =>
    existing(
      evolveTenant(initialTenantState(), { type: 'TenantCreated', data: { tenant: 'acme', settings: decidedSettings(), authority_epoch: 1, created_ms: 1 } }),
    );
  const decidedSettings = () => {
    const d = decideTenant({ type: 'CreateTenant', tenant: 'acme', settings: {}, now: 1 }, initialTenantState());
    if (E.isLeft(d) || d.right[0]!.type !== 'TenantCreated') throw new Error('no tenant');
    return d.right[0]!.data.settings;
  };

  it('a map whose parts were all removed packs no part line, and opens empty', () => {
    let s: TenantState = base();
    for (const e of E.getOrElseW(() => [])(decideTenant({ type: 'InstallPlugin', tenant: 'acme', name: 'notes', functions: ['f'], agents: ['a'], now: 2 }, s)))
      s = evolveTenant(s, e);
    for (const e of E.getOrElseW(() => [])(
      decideTenant({ type: 'ApplyRevocations', tenant: 'acme', items: [{ kind: 'plugin_removed', plugin: 'notes' }], now: 3 }, s),
    ))
      s = evolveTenant(s, e);
    const packed = packTenant({ state: s, batches: [], position: 3 }, STREAM, 3, macOf);
    const lines = packed.split('\n');
    // install_gens keeps notes: one part line; plugins and plugin_order hold none.
    expect(lines.slice(1).map((l) => l.split('\t')[0])).toEqual(['install_gens']);
    const back = existing(reopen(s, 3));
    expect([back.plugins.size, [...back.plugins.entries()], back.plugin_order.size, back.install_gens.get('notes')]).toEqual([0, [], 0, 1]);
  });

  it('a tenant that does not exist, and one with no plugins, round-trip', () => {
    expect(reopen(initialTenantState(), 1)).toEqual({ exists: false });
    const back = existing(reopen(base(), 1));
    expect(tenantView(back)).toEqual(tenantView(base()));
    expect(packTenant({ state: back, batches: [], position: 1 }, STREAM, 1, macOf).split('\n')).toHaveLength(1);
  });
});

describe("a snapshot's part lines never break", () => {
  it('names and request ids holding tab, newline, U+2028 and NUL stay on one line each', () => {
    const odd = ['a\tb', 'c\nd', 'e\r\nf', 'g\u2028h', '\u0000'];
    let s: TenantState = evolveTenant(initialTenantState(), {
      type: 'TenantCreated',
      data: { tenant: 'acme', settings: {} as never, authority_epoch: 1, created_ms: 1 },
    });
    for (const [i, name] of odd.entries())
      s = evolveTenant(s, {
        type: 'PluginInstalled',
        data: { tenant: 'acme', name, install_gen: 1, scopes: ['tenant'], functions: ['f'], agents: ['a'], startup: null, installed_ms: i, request_id: name },
      });
    const packed = packTenant({ state: s, batches: [], position: 1 }, STREAM, 1, macOf);
    const back = existing(reopen(s, 1));
    for (const name of odd) expect([back.plugins.get(name)?.name, back.requests.get(name)?.kind]).toEqual([name, 'plugin']);
    for (const line of packed.split('\n').slice(1)) expect(line.split('\t')).toHaveLength(3);
  });
});

describe('an earlier tenant format-2 snapshot (maps as entry arrays, as 33788f2 wrote) is not used', () => {
  it('opens to null, not to a state whose maps are empty', () => {
    const state = {
      exists: true,
      id: 'acme',
      settings: {},
      authority_epoch: 1,
      settings_version: 1,
      created_ms: 1,
      plugins: [['notes', { name: 'notes', install_gen: 1, scopes: ['tenant'], functions: ['f'], agents: ['a'], startup: null }]],
      plugin_order: [['notes', 0]],
      plugin_seq: 1,
      holds: {},
      pending_erasures: [],
      install_gens: [['notes', 1]],
      killed_agents: [],
      revoked_keys: [],
      requests: [],
      receipts: {},
    };
    const text = JSON.stringify({ state, batches: [], position: 4 });
    expect(unpackTenant(sealSnapshot('tenant-snapshot', '2', text, STREAM, 4, macOf), STREAM, 4, macOf)).toBeNull();
  });
});

describe("a pack reuses a part's JSON only for the very node it was made of", () => {
  it('an opened state, partly looked into, upgraded and packed, then opened again, holds the upgrade', () => {
    let s: TenantState = evolveTenant(initialTenantState(), {
      type: 'TenantCreated',
      data: { tenant: 'acme', settings: {} as never, authority_epoch: 1, created_ms: 1 },
    });
    const inst = (name: string, fns: string[]): TenantStreamEvent => ({
      type: 'PluginInstalled',
      data: { tenant: 'acme', name, install_gen: 1, scopes: ['tenant'], functions: fns, agents: ['a'], startup: null, installed_ms: 1 },
    });
    for (let i = 0; i < 50; i++) s = evolveTenant(s, inst(`p${i}`, ['f']));
    const opened = existing(reopen(s, 1));
    // Decoded (memoized under its node), then packed: the text given is the part's own.
    expect(opened.plugins.get('p7')?.functions).toEqual(['f']);
    const first = packTenant({ state: opened, batches: [], position: 1 }, STREAM, 1, macOf);
    const upgraded = evolveTenant(opened, inst('p7', ['f', 'g']));
    const second = packTenant({ state: upgraded, batches: [], position: 2 }, STREAM, 2, macOf);
    expect(second).not.toBe(first);
    expect(existing(reopen(upgraded, 2)).plugins.get('p7')?.functions).toEqual(['f', 'g']);
    // The opened state still packs as it did: its part was not written to.
    expect(packTenant({ state: opened, batches: [], position: 1 }, STREAM, 1, macOf)).toBe(first);
    expect(keyedParts(opened.plugins.map).some(([, p]) => p instanceof PartStub)).toBe(true);
  });
});
