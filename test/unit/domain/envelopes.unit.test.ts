import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainVerifies, constraintsDigest, envelopeHash, macInput, type Block, type Chain, type SignedBlock } from '../../../domain/envelopes/block.ts';
import { reaches, type Revocation } from '../../../domain/envelopes/reaches.ts';
import { jobDecider, type JobCommand, type StartJobRequest } from '../../../domain/jobs/decide.ts';
import type { JobStreamEvent } from '../../../domain/jobs/state.ts';
import { fold } from '../../../domain/shared/decider.ts';
import { tenantDecider } from '../../../domain/tenants/decide.ts';
import type { TenantEvent } from '../../../domain/tenants/events.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import { specify } from '../../support/decider.ts';

const mac = (input: string) => createHmac('sha256', 'k').update(input).digest('hex');
const tenantEvents: TenantEvent[] = [
  {
    type: 'TenantCreated',
    data: { tenant: 'acme', settings: { ...defaultSettings(), grants: { boss: ['plugin:worker', 'plugin:mail'] } }, authority_epoch: 3, created_ms: 0 },
  },
  {
    type: 'PluginInstalled',
    data: { tenant: 'acme', name: 'boss', install_gen: 1, scopes: ['tenant'], functions: ['plan'], agents: ['lead'], startup: null, installed_ms: 0 },
  },
  {
    type: 'PluginInstalled',
    data: { tenant: 'acme', name: 'worker', install_gen: 2, scopes: ['tenant'], functions: ['do'], agents: ['hand'], startup: null, installed_ms: 0 },
  },
  {
    type: 'PluginInstalled',
    data: { tenant: 'acme', name: 'mail', install_gen: 1, scopes: ['tenant'], functions: ['send'], agents: ['postman'], startup: null, installed_ms: 0 },
  },
];
const tenant = fold(tenantDecider, tenantEvents);

const { given } = specify(jobDecider);
/** Given no history, when the job is started (under a parent with that history): the decision. */
const decide = (job: string, request: StartJobRequest, parent: JobStreamEvent[] | null, now = 1000) =>
  given([]).when({ type: 'StartJob', tenant, job, request, parent: parent ? fold(jobDecider, parent) : null, mac, now } as JobCommand);
const chainOf = (events: JobStreamEvent[]): Chain => events.flatMap((e) => (e.type === 'EnvelopeBlockAppended' ? [e.data.signed] : []));

const root = decide(
  'root',
  {
    agent: 'lead',
    plugin: 'boss',
    subject: 'user:ada',
    input: 'go',
    budget_usd: 10,
    max_depth: 2,
    timeout_ms: 60_000,
    constraints: ['cite the ticket'],
    labels: ['internal'],
  },
  null,
).accepted();
const child = (request: Partial<StartJobRequest>, parent = root) =>
  decide('child', { agent: 'hand', plugin: 'worker', subject: 'user:ada', parent: 'root', ...request }, parent, 2000);

describe('block 0', () => {
  it('holds every SPEC §6 field, MACed, with the envelope hash on the job', () => {
    const chain = chainOf(root);
    expect(chain).toHaveLength(1);
    expect(chain[0]!.block).toEqual({
      job: 'root',
      run: 1,
      subject: 'user:ada',
      agent: 'lead',
      agent_version: '1',
      plugin: 'boss',
      install_gen: 1,
      purpose: expect.stringMatching(/^[0-9a-f]{64}$/),
      scopes: [
        'agent:boss/lead',
        'agent:mail/postman',
        'agent:worker/hand',
        'plugin:boss',
        'plugin:mail',
        'plugin:worker',
        'tool:boss/plan',
        'tool:mail/send',
        'tool:worker/do',
      ],
      budget_usd: 10,
      max_depth: 2,
      depth: 0,
      expires_ms: 61_000,
      policy_version: 1,
      epoch: 3,
      level: 'L2',
      granted_by: 'tenant:acme',
      level_policy_version: 1,
      labels: ['internal'],
      constraints_digest: constraintsDigest(['cite the ticket']),
    });
    expect(chainVerifies(chain, mac)).toBe(true);
    expect(envelopeHash(chain)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('child blocks only narrow', () => {
  it('takes the parent subject, epoch and purpose; scopes = parent ∩ child reach; depth + 1; constraints word for word', () => {
    const events = child({ budget_usd: 5 }).accepted();
    const chain = chainOf(events);
    expect(chain).toHaveLength(2);
    expect(chain[0]).toEqual(chainOf(root)[0]);
    expect(chain[1]!.block).toMatchObject({
      subject: 'user:ada',
      epoch: 3,
      depth: 1,
      max_depth: 2,
      budget_usd: 5,
      expires_ms: 61_000,
      level: 'L2',
      plugin: 'worker',
      purpose: chainOf(root)[0]!.block.purpose,
      scopes: ['agent:worker/hand', 'plugin:worker', 'tool:worker/do'],
      constraints_digest: constraintsDigest(['cite the ticket']),
    });
    expect(events[0]!.data).toMatchObject({ constraints: ['cite the ticket'], parent: 'root' });
    expect(chainVerifies(chain, mac)).toBe(true);
  });

  it.each([
    [{ budget_usd: 11 }, 'budget_usd'],
    [{ max_depth: 3 }, 'max_depth'],
    [{ timeout_ms: 60_000 }, 'timeout_ms'],
    [{ scopes: ['tool:mail/send'] }, 'scopes'],
    [{ subject: 'user:bob' }, 'subject'],
    [{ input: 'another task' }, 'purpose'],
  ] as [Partial<StartJobRequest>, string][])('refuses a child asking %j, naming %s', (ask, field) => {
    child(ask).then({ error: 'widening_refused', field, reason: expect.any(String) });
  });

  it('refuses depth beyond max_depth', () => {
    const one = child({ max_depth: 1 }).accepted();
    const two = decide('grandchild', { agent: 'hand', plugin: 'worker', subject: 'user:ada', parent: 'child' }, one, 3000);
    two.then({ error: 'widening_refused', field: 'depth', reason: expect.any(String) });
  });

  it('adds constraints after the inherited ones', () => {
    const events = child({ constraints: ['be brief'] }).accepted();
    expect(events[0]!.data).toMatchObject({ constraints: ['cite the ticket', 'be brief'] });
  });

  it('gives a tampered parent chain nothing', () => {
    const tampered = root.map((e) =>
      e.type === 'EnvelopeBlockAppended' ? { ...e, data: { ...e.data, signed: { ...e.data.signed, block: { ...e.data.signed.block, budget_usd: 1000 } } } } : e,
    );
    child({}, tampered).then({ error: 'envelope_invalid', what: 'parent' });
    expect(chainVerifies(chainOf(tampered), mac)).toBe(false);
  });
});

describe('reaches: the one revocation rule', () => {
  const name = fc.constantFrom('a', 'b', 'c', 'd');
  const blockArb = fc.record({
    plugin: name,
    agent: name,
    subject: fc.constantFrom('user:ada', 'user:bob', 'apikey:k1', 'apikey:k2'),
    scopes: fc.uniqueArray(
      fc.oneof(
        name.map((p) => `plugin:${p}`),
        fc.tuple(name, name).map(([p, f]) => `tool:${p}/${f}`),
      ),
      { maxLength: 4 },
    ),
  });
  const chainArb = fc
    .array(blockArb, { minLength: 1, maxLength: 4 })
    .map((bs): Chain => bs.map((b, i): SignedBlock => ({ block: { ...baseBlock, ...b, depth: i, job: `j${i}` }, mac: 'm' })));
  const baseBlock: Block = chainOf(root)[0]!.block;

  const involves = (r: Revocation, chain: Chain) => {
    const blocks = chain.map((b) => b.block);
    switch (r.kind) {
      case 'kill_agent':
        return blocks.some((b) => r.agent === `${b.plugin}/${b.agent}`);
      case 'grant_narrowed':
        return blocks.some((b) => b.plugin === r.grantee && b.scopes.includes(r.scope));
      case 'plugin_removed':
        return blocks.some((b) => b.plugin === r.plugin || b.scopes.some((s) => s === `plugin:${r.plugin}` || s.startsWith(`tool:${r.plugin}/`)));
      case 'api_key_revoked':
        return blocks.some((b) => b.subject === `apikey:${r.key}`);
      case 'person_revoked':
        return blocks.some((b) => b.subject === r.person);
    }
  };
  const revocationArb: fc.Arbitrary<Revocation> = fc.oneof(
    fc.tuple(name, name).map(([p, a]) => ({ kind: 'kill_agent' as const, agent: `${p}/${a}` })),
    fc.tuple(name, name).map(([g, p]) => ({ kind: 'grant_narrowed' as const, grantee: g, scope: `plugin:${p}` })),
    name.map((p) => ({ kind: 'plugin_removed' as const, plugin: p })),
    fc.constantFrom('k1', 'k2', 'k3').map((key) => ({ kind: 'api_key_revoked' as const, key })),
    fc.constantFrom('user:ada', 'user:bob', 'user:cy').map((person) => ({ kind: 'person_revoked' as const, person })),
  );

  it('reaches exactly the chains that involve what was revoked', () => {
    fc.assert(
      fc.property(revocationArb, chainArb, (r, chain) => {
        expect(reaches(r, chain)).toBe(involves(r, chain));
      }),
      { numRuns: 2000 },
    );
  });

  it('reaches a chain as soon as any block involves the revoked thing, wherever it stands', () => {
    fc.assert(
      fc.property(chainArb, fc.nat(), name, name, (chain, at, p, a) => {
        const r: Revocation = { kind: 'kill_agent', agent: `${p}/${a}` };
        const clean = chain.map((b) => ({ ...b, block: { ...b.block, agent: `${b.block.agent}-x` } }));
        expect(reaches(r, clean)).toBe(false);
        const i = at % clean.length;
        const planted = clean.map((b, j) => (j === i ? { ...b, block: { ...b.block, plugin: p, agent: a } } : b));
        expect(reaches(r, planted)).toBe(true);
      }),
    );
  });

  it('does not reach a chain whose grantee block lacks the lost scope', () => {
    fc.assert(
      fc.property(chainArb, (chain) => {
        const without = chain.map((b) => ({ ...b, block: { ...b.block, scopes: b.block.scopes.filter((s) => s !== 'plugin:z') } }));
        expect(reaches({ kind: 'grant_narrowed', grantee: chain[0]!.block.plugin, scope: 'plugin:z' }, without)).toBe(false);
        const planted = [{ ...without[0]!, block: { ...without[0]!.block, scopes: [...without[0]!.block.scopes, 'plugin:z'] } }, ...without.slice(1)];
        expect(reaches({ kind: 'grant_narrowed', grantee: chain[0]!.block.plugin, scope: 'plugin:z' }, planted)).toBe(true);
      }),
    );
  });

  it('the MAC input binds the previous link', () => {
    const [b] = chainOf(root);
    expect(macInput(b!.block, 'x')).not.toBe(macInput(b!.block, 'y'));
  });
});
