import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { Chain } from '../../../domain/envelopes/block.ts';
import { jobDecider, type JobCommand, type StartJobRequest } from '../../../domain/jobs/decide.ts';
import type { JobStreamEvent } from '../../../domain/jobs/state.ts';
import { fold } from '../../../domain/shared/decider.ts';
import { tenantDecider, type TenantCommand } from '../../../domain/tenants/decide.ts';
import { defaultSettings, type TenantSettings } from '../../../domain/tenants/settings.ts';
import type { TenantState, TenantStreamEvent } from '../../../domain/tenants/state.ts';
import { withdrawnItems } from '../../../domain/tenants/withdrawn.ts';
import { specify } from '../../support/decider.ts';

/** SPEC §6 "Corrections to earlier readings", decided in the deciders. */
const mac = (input: string) => createHmac('sha256', 'k').update(input).digest('hex');
const settings = (over: Partial<TenantSettings> = {}): TenantSettings => ({ ...defaultSettings(), ...over });

const created = (over: Partial<TenantSettings> = {}): TenantStreamEvent => ({
  type: 'TenantCreated',
  data: { tenant: 'acme', settings: settings(over), authority_epoch: 1, created_ms: 0 },
});
const installed = (name: string, agents: string[], gen = 1): TenantStreamEvent => ({
  type: 'PluginInstalled',
  data: { tenant: 'acme', name, install_gen: gen, scopes: ['tenant'], functions: ['save'], agents, startup: null, installed_ms: 0 },
});

const tenants = specify(tenantDecider);
const jobs = specify(jobDecider);

/** Given tenant events, when commands in turn: the last one's decision, every event kept, and the state after. */
const tenantAfter = (history: TenantStreamEvent[], first: TenantCommand, ...more: TenantCommand[]) => {
  let events = [...history];
  let last = tenants.given(events).when(first);
  for (const c of [first, ...more]) {
    last = tenants.given(events).when(c);
    if (E.isRight(last.decision)) events = [...events, ...last.decision.right];
  }
  return { last, events, state: fold(tenantDecider, events) };
};
const patch = (changes: Partial<TenantSettings>): TenantCommand => ({ type: 'ChangeTenantSettings', tenant: 'acme', changes, now: 5 });
const install = (name: string, request_id?: string): TenantCommand => ({
  type: 'InstallPlugin',
  tenant: 'acme',
  name,
  functions: ['save'],
  agents: ['scribe'],
  request_id,
  now: 7,
});
const revoke = (items: Extract<TenantCommand, { type: 'ApplyRevocations' }>['items'], request_id?: string): TenantCommand => ({
  type: 'ApplyRevocations',
  tenant: 'acme',
  items,
  request_id,
  now: 9,
});

const startJob = (
  tenant: TenantState,
  request: Partial<StartJobRequest>,
  job = 'j1',
  history: JobStreamEvent[] = [],
  parent: JobStreamEvent[] | null = null,
  now = 1000,
) =>
  jobs.given(history).when({
    type: 'StartJob',
    tenant,
    job,
    request: { agent: 'scribe', plugin: 'notes', subject: 'user:ada', ...request },
    parent: parent ? fold(jobDecider, parent) : null,
    mac,
    now,
  } as JobCommand);
const chainOf = (events: JobStreamEvent[]): Chain => events.flatMap((e) => (e.type === 'EnvelopeBlockAppended' ? [e.data.signed] : []));

describe('withdrawnItems: which revocation items a settings change implies', () => {
  const before = settings({
    grants: { mail: ['plugin:notes', 'tool:notes/save'] },
    start_roles: ['admin', 'dev'],
    start_teams: ['ops'],
    people: { 'user:ada': { roles: ['admin', 'dev'], teams: ['ops'] }, 'user:bob': { roles: ['dev'], teams: [] } },
  });

  it('given a change that only adds, when judged, then it implies nothing', () => {
    expect(
      withdrawnItems(before, {
        ...before,
        grants: { mail: ['plugin:notes', 'tool:notes/save', 'plugin:x'], other: ['plugin:y'] },
        start_roles: ['admin', 'dev', 'new'],
      }),
    ).toEqual([]);
    expect(withdrawnItems(before, before)).toEqual([]);
  });

  it('given grants removed or narrowed, then one grant_narrowed per lost scope', () => {
    expect(withdrawnItems(before, { ...before, grants: { mail: ['tool:notes/save'] } })).toEqual([
      { kind: 'grant_narrowed', grantee: 'mail', scope: 'plugin:notes' },
    ]);
    expect(withdrawnItems(before, { ...before, grants: {} })).toEqual([
      { kind: 'grant_narrowed', grantee: 'mail', scope: 'plugin:notes' },
      { kind: 'grant_narrowed', grantee: 'mail', scope: 'tool:notes/save' },
    ]);
  });

  it("given a person's role or team removed, or the person dropped, then a person_change naming what they lost", () => {
    expect(withdrawnItems(before, { ...before, people: { ...before.people, 'user:ada': { roles: ['dev'], teams: ['ops'] } } })).toEqual([
      { kind: 'person_change', person: 'user:ada', remove_roles: ['admin'] },
    ]);
    expect(withdrawnItems(before, { ...before, people: { 'user:ada': before.people['user:ada']! } })).toEqual([
      { kind: 'person_change', person: 'user:bob', remove_roles: ['dev'] },
    ]);
  });

  it('given a start role or start team removed, then a start_role_removed or start_team_removed', () => {
    expect(withdrawnItems(before, { ...before, start_roles: ['dev'], start_teams: [] })).toEqual([
      { kind: 'start_role_removed', role: 'admin' },
      { kind: 'start_team_removed', team: 'ops' },
    ]);
  });

  it('property: a change implies nothing exactly when every list of the new settings holds the old one', () => {
    const names = fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 });
    const arb = fc.record({
      grants: fc.dictionary(
        fc.constantFrom('p', 'q'),
        names.map((xs) => xs.map((x) => `plugin:${x}`)),
      ),
      start_roles: names,
      start_teams: names,
      people: fc.dictionary(fc.constantFrom('user:ada', 'user:bob'), fc.record({ roles: names, teams: names })),
    });
    fc.assert(
      fc.property(arb, arb, (a, b) => {
        const x = settings(a);
        const y = settings(b);
        const holds = (o: readonly string[], n: readonly string[] | undefined) => o.every((v) => (n ?? []).includes(v));
        const onlyAdds =
          Object.entries(x.grants).every(([g, s]) => holds(s, y.grants[g])) &&
          holds(x.start_roles, y.start_roles) &&
          holds(x.start_teams, y.start_teams) &&
          Object.entries(x.people).every(([p, v]) => holds(v.roles, y.people[p]?.roles) && holds(v.teams, y.people[p]?.teams));
        expect(withdrawnItems(x, y).length === 0).toBe(onlyAdds);
      }),
      { numRuns: 300 },
    );
  });
});

describe('tenant decider: a withdrawn grant is refused at once', () => {
  const history = [
    created({ grants: { mail: ['plugin:notes'] }, start_roles: ['admin'], people: { 'user:ada': { roles: ['admin'], teams: [] } } }),
    installed('notes', ['scribe']),
    installed('mail', ['postman']),
  ];

  it('given a grant, when a PATCH removes it, then the settings change and one batch (one epoch step) that revokes it', () => {
    const events = tenantAfter(history, patch({ grants: {} })).last.accepted();
    expect(events.map((e) => e.type)).toEqual(['TenantSettingsChanged', 'RevocationBatchApplied']);
    expect(events[1]!.data).toMatchObject({
      epoch: 2,
      items: [{ kind: 'grant_narrowed', grantee: 'mail', scope: 'plugin:notes' }],
      revocations: [{ kind: 'grant_narrowed', grantee: 'mail', scope: 'plugin:notes' }],
    });
  });

  it('given a person with a start role, when a PATCH removes the start role, then the person is revoked; a PATCH that only adds steps no epoch', () => {
    const removed = tenantAfter(history, patch({ start_roles: [], start_teams: ['ops'] })).last.accepted();
    expect(removed[1]!.data).toMatchObject({ epoch: 2, revocations: [{ kind: 'person_revoked', person: 'user:ada' }], start_roles: [], start_teams: ['ops'] });
    const added = tenantAfter(history, patch({ start_teams: ['ops'], grants: { mail: ['plugin:notes', 'tool:x/y'] } }));
    expect(added.last.accepted().map((e) => e.type)).toEqual(['TenantSettingsChanged']);
    expect(added.state.exists && added.state.authority_epoch).toBe(1);
  });

  it('judges on the settings the whole change leaves: a role lost while a start team is gained revokes nobody', () => {
    const events = tenantAfter(history, patch({ start_teams: ['ops'], people: { 'user:ada': { roles: [], teams: ['ops'] } } })).last.accepted();
    expect(events[1]!.data).toMatchObject({ epoch: 2, revocations: [] });
  });
});

describe('tenant decider: install_gen and request ids', () => {
  it('given an installed plugin, an upgrade keeps its install_gen; after a removal the next install takes a number never used', () => {
    const { events } = tenantAfter([created()], install('notes'), install('notes'), revoke([{ kind: 'plugin_removed', plugin: 'notes' }]), install('notes'));
    const gens = events.flatMap((e) => (e.type === 'PluginInstalled' ? [e.data.install_gen] : []));
    expect(gens).toEqual([1, 1, 2]);
  });

  it('given an answered request id, a retried install or batch decides nothing; the id of another kind is a conflict', () => {
    const first = tenantAfter([created()], install('notes', 'r1'), revoke([{ kind: 'kill_agent', agent: 'notes/scribe' }], 'b1'));
    tenants.given(first.events).when(install('notes', 'r1')).thenNothing();
    tenants
      .given(first.events)
      .when(revoke([{ kind: 'kill_agent', agent: 'notes/scribe' }], 'b1'))
      .thenNothing();
    tenants
      .given(first.events)
      .when(install('notes', 'b1'))
      .then(expect.objectContaining({ error: 'already_exists', what: 'request_id', request_id: 'b1' }));
    expect(first.state.exists && Object.fromEntries(first.state.requests.entries())).toEqual({
      r1: { kind: 'plugin', plugin: expect.objectContaining({ name: 'notes', install_gen: 1 }), digest: expect.any(String) },
      b1: { kind: 'revocations', epoch: 2, digest: expect.any(String) },
    });
  });

  // Red-team items 3 and 9: this was answered with the earlier answer, so the second request did nothing.
  it('given an answered request id, another request of the same kind under it is a conflict and writes nothing', () => {
    const first = tenantAfter([created()], install('notes', 'r1'), revoke([{ kind: 'kill_agent', agent: 'notes/scribe' }], 'b1'));
    tenants
      .given(first.events)
      .when(revoke([{ kind: 'plugin_removed', plugin: 'notes' }], 'b1'))
      .then(expect.objectContaining({ error: 'already_exists', what: 'request_id', request_id: 'b1' }));
    tenants
      .given(first.events)
      .when(install('other', 'r1'))
      .then(expect.objectContaining({ error: 'already_exists', what: 'request_id', request_id: 'r1' }));
  });
});

describe('tenant decider: names are names', () => {
  it('given a person or grantee named __proto__, a batch keeps them as entries', () => {
    const events = tenantAfter(
      [created({ people: { ['__proto__']: { roles: ['a'], teams: [] } } })],
      revoke([
        { kind: 'person_change', person: '__proto__', remove_roles: ['a'] },
        { kind: 'grant_narrowed', grantee: '__proto__', scope: 'plugin:x' },
      ]),
    ).last.accepted();
    const data = events[0]!.data as { people: object; grants: object };
    expect(Object.hasOwn(data.people, '__proto__') && Object.getOwnPropertyDescriptor(data.people, '__proto__')!.value).toEqual({ roles: [], teams: [] });
    expect(Object.hasOwn(data.grants, '__proto__')).toBe(true);
  });
});

describe('tenant decider: one receipt per batch', () => {
  it('given a batch with its receipt, when another try of it issues a receipt, then nothing is written', () => {
    const issue = (sig: string): TenantCommand => ({ type: 'IssueReceipt', tenant: 'acme', epoch: 2, receipt: { signature: sig }, now: 3 });
    const done = tenantAfter([created()], revoke([{ kind: 'api_key_revoked', key: 'k' }], 'b1'), issue('first'));
    tenants.given(done.events).when(issue('second')).thenNothing();
    expect(done.state.exists && done.state.receipts[2]).toEqual({ signature: 'first' });
  });
});

describe('job decider: revocations stick', () => {
  const history = [created({ start_roles: ['admin'], people: { 'user:ada': { roles: ['admin'], teams: [] } } }), installed('notes', ['scribe', 'clerk'])];

  it('given a killed agent, no start (a retry of the stopped id included) until the kill is lifted', () => {
    const kill = tenantAfter(history, revoke([{ kind: 'kill_agent', agent: 'notes/scribe' }]));
    startJob(kill.state, {}).then(expect.objectContaining({ error: 'revoked', reason: expect.stringContaining('kill_agent notes/scribe') }));
    startJob(kill.state, { agent: 'clerk' }).accepted();
    const lifted = tenantAfter(kill.events, { type: 'LiftKill', tenant: 'acme', agent: 'notes/scribe', now: 10 });
    expect(lifted.last.accepted()).toEqual([{ type: 'AgentKillLifted', data: { tenant: 'acme', agent: 'notes/scribe', lifted_ms: 10 } }]);
    startJob(lifted.state, {}).accepted();
    tenants
      .given(lifted.events)
      .when({ type: 'LiftKill', tenant: 'acme', agent: 'notes/scribe', now: 11 })
      .then({ error: 'not_found', what: 'kill', agent: 'notes/scribe' });
  });

  it('given a removed plugin or a revoked api key, no start; a new install brings the plugin back', () => {
    const gone = tenantAfter(
      history,
      revoke([
        { kind: 'plugin_removed', plugin: 'notes' },
        { kind: 'api_key_revoked', key: 'k1' },
      ]),
    );
    startJob(gone.state, {}).then(expect.objectContaining({ error: 'revoked', reason: expect.stringContaining('plugin_removed notes') }));
    const back = tenantAfter(gone.events, { ...install('notes'), agents: ['scribe'] } as TenantCommand);
    startJob(back.state, {}).accepted();
    startJob(back.state, { subject: 'apikey:k1' }).then(expect.objectContaining({ error: 'revoked', reason: 'api_key_revoked k1' }));
    startJob(back.state, { subject: 'apikey:k2' }).accepted();
  });

  it("given start roles, a person without a path starts nothing; a stopped job's id is refused too; without start roles or teams anyone starts", () => {
    const state = fold(tenantDecider, history);
    startJob(state, { subject: 'user:zed' }).then(expect.objectContaining({ error: 'revoked' }));
    startJob(state, { subject: 'team:ops' }).accepted();
    const started = startJob(state, {}).accepted();
    const stopped = [
      ...started,
      { type: 'JobStopped', data: { tenant: 'acme', job: 'j1', run: 1, epoch: 2, reasons: ['person_revoked user:ada'], stopped_ms: 5 } } as JobStreamEvent,
    ];
    const lost = tenantAfter(history, revoke([{ kind: 'person_change', person: 'user:ada', remove_roles: ['admin'] }]));
    startJob(lost.state, {}, 'j1', stopped).then(expect.objectContaining({ error: 'revoked', reason: expect.stringContaining('person_revoked user:ada') }));
    const open = fold(tenantDecider, [created(), installed('notes', ['scribe'])]);
    startJob(open, { subject: 'user:zed' }).accepted();
  });
});

describe("job decider: a child's labels are the parent's current labels", () => {
  it('given a parent that joined red since its start, when it starts a child, then the child block and job carry red', () => {
    const state = fold(tenantDecider, [created(), installed('notes', ['scribe', 'clerk'])]);
    const parent = [
      ...startJob(state, { labels: ['internal'] }, 'p').accepted(),
      { type: 'LabelsJoined', data: { tenant: 'acme', job: 'p', run: 1, call: 'c', labels: ['red'], joined_ms: 2 } } as JobStreamEvent,
    ];
    const child = startJob(state, { agent: 'clerk', parent: 'p' }, 'c', [], parent).accepted();
    expect(child[0]!.data).toMatchObject({ labels: ['internal', 'red'] });
    expect(chainOf(child).at(-1)!.block.labels).toEqual(['internal', 'red']);
  });
});

describe('ceilings default to none', () => {
  const state = (over: Partial<TenantSettings> = {}) => fold(tenantDecider, [created(over), installed('notes', ['scribe', 'clerk'])]);

  it('given no timeout and no depth, block 0 has none; the job never expires and delegates any depth', () => {
    const root = startJob(state(), {}, 'r0').accepted();
    expect(chainOf(root)[0]!.block).toMatchObject({ max_depth: null, expires_ms: null });
    const mint: JobCommand = {
      type: 'MintCall',
      job: 'r0',
      envelopeValid: true,
      function: 'save',
      startup: false,
      call: 'c1',
      ticketHash: 'h',
      newIdempotencyKey: 'k',
      now: 1e15,
    };
    jobs.given(root).when(mint).accepted();
    let parent = root;
    for (let depth = 1; depth <= 8; depth++) {
      parent = startJob(state(), { parent: `r${depth - 1}` }, `r${depth}`, [], parent, 1e15).accepted();
      expect(chainOf(parent).at(-1)!.block).toMatchObject({ depth, max_depth: null, expires_ms: null });
    }
  });

  it("given the tenant max_depth, it is the default; the start's own max_depth wins", () => {
    expect(chainOf(startJob(state({ max_depth: 1 }), {}).accepted())[0]!.block.max_depth).toBe(1);
    expect(chainOf(startJob(state({ max_depth: 1 }), { max_depth: 3 }).accepted())[0]!.block.max_depth).toBe(3);
  });

  it('given a parent without a ceiling, a child may set one; given a parent with one, a child cannot lift it', () => {
    const open = startJob(state(), {}, 'p').accepted();
    const bounded = startJob(state(), { parent: 'p', max_depth: 2, timeout_ms: 1000 }, 'c', [], open).accepted();
    expect(chainOf(bounded).at(-1)!.block).toMatchObject({ max_depth: 2, expires_ms: 2000 });
    const grandchild = startJob(state(), { parent: 'c' }, 'g', [], bounded).accepted();
    expect(chainOf(grandchild).at(-1)!.block).toMatchObject({ max_depth: 2, expires_ms: 2000 });
    startJob(state(), { parent: 'c', max_depth: 5 }, 'g', [], bounded).then(expect.objectContaining({ error: 'widening_refused', field: 'max_depth' }));
    startJob(state(), { parent: 'c', timeout_ms: 10_000 }, 'g', [], bounded).then(expect.objectContaining({ error: 'widening_refused', field: 'timeout_ms' }));
  });
});
