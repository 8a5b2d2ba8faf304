import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chain } from '../../../domain/envelopes/block.ts';
import { reaches, type Revocation } from '../../../domain/envelopes/reaches.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Issue 12's property: for random sequences of grant, role and team changes through PATCH and
 * /revocations, kills and their lifting, and starts under random subjects and plugins, a job
 * is running iff no revocation since its epoch reaches its chain — `reaches` is the oracle,
 * the service's job status the answer.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

const AGENTS = ['notes/scribe', 'notes/clerk', 'mail/postman'] as const;
const SUBJECTS = ['user:ada', 'user:bob', 'user:cy', 'apikey:k1', 'apikey:k2'] as const;
const PEOPLE = ['user:ada', 'user:bob', 'user:cy'] as const;
const SCOPES = ['plugin:notes', 'tool:notes/save'] as const;

type Op =
  | { op: 'start'; agent: string; subject: string }
  | { op: 'revoke'; items: Record<string, unknown>[] }
  | { op: 'patch'; changes: Record<string, unknown> }
  | { op: 'lift'; agent: string };

const item = fc.oneof(
  fc.constantFrom(...AGENTS).map((agent) => ({ kind: 'kill_agent', agent })),
  fc.constantFrom(...SCOPES).map((scope) => ({ kind: 'grant_narrowed', grantee: 'mail', scope })),
  fc.constantFrom('k1', 'k2').map((key) => ({ kind: 'api_key_revoked', key })),
  fc
    .tuple(fc.constantFrom(...PEOPLE), fc.boolean())
    .map(([person, role]) => ({ kind: 'person_change', person, ...(role ? { remove_roles: ['admin'] } : { remove_teams: ['ops'] }) })),
);
const subset = <T>(xs: readonly T[]) => fc.subarray([...xs]);
const person = fc.record({ roles: subset(['admin', 'dev']), teams: subset(['ops']) });
const changes = fc.record(
  {
    grants: subset(SCOPES).map((s) => ({ mail: s })),
    start_roles: subset(['admin', 'dev']),
    start_teams: subset(['ops']),
    people: fc.record({ 'user:ada': person, 'user:bob': person, 'user:cy': person }),
  },
  { requiredKeys: [] },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('start' as const), agent: fc.constantFrom(...AGENTS), subject: fc.constantFrom(...SUBJECTS) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('revoke' as const), items: fc.array(item, { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('patch' as const), changes }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('lift' as const), agent: fc.constantFrom(...AGENTS) }) },
);

/**
 * A model of the tenant kept by the test, independent of the service: what each batch must
 * revoke (SPEC §6), and whether a start must be refused. The service's answers are compared
 * with it, and the model's revocations (not the answers') are the oracle's input.
 */
interface Model {
  grants: string[];
  people: Record<string, { roles: string[]; teams: string[] }>;
  start_roles: string[];
  start_teams: string[];
  killed: Set<string>;
  keys: Set<string>;
  epoch: number;
}
const hasPath = (m: Pick<Model, 'people' | 'start_roles' | 'start_teams'>, p: string) =>
  (m.start_roles.length === 0 && m.start_teams.length === 0) ||
  (m.people[p]?.roles.some((r) => m.start_roles.includes(r)) ?? false) ||
  (m.people[p]?.teams.some((x) => m.start_teams.includes(x)) ?? false);
const mailReaches = (grants: string[], scope: string) => grants.includes(scope) || (scope.startsWith('tool:notes/') && grants.includes('plugin:notes'));
const clone = (m: Model): Model => ({
  ...m,
  grants: [...m.grants],
  people: structuredClone(m.people),
  start_roles: [...m.start_roles],
  start_teams: [...m.start_teams],
  killed: new Set(m.killed),
  keys: new Set(m.keys),
});

/** Judges a batch from the model before and after it, as SPEC §6 words it. */
const judge = (before: Model, after: Model, items: Record<string, unknown>[], narrowed: string[]): Revocation[] => {
  const out: Revocation[] = [];
  for (const i of items) {
    if (i.kind === 'kill_agent') out.push({ kind: 'kill_agent', agent: i.agent as string });
    if (i.kind === 'api_key_revoked') out.push({ kind: 'api_key_revoked', key: i.key as string });
  }
  for (const scope of new Set(narrowed)) if (!mailReaches(after.grants, scope)) out.push({ kind: 'grant_narrowed', grantee: 'mail', scope });
  for (const p of PEOPLE) if (hasPath(before, p) && !hasPath(after, p)) out.push({ kind: 'person_revoked', person: p });
  return out;
};
const sameSet = (a: Revocation[], b: Revocation[]) =>
  expect([...new Set(a.map((x) => JSON.stringify(x)))].sort()).toEqual([...new Set(b.map((x) => JSON.stringify(x)))].sort());

let runs = 0;
const figures = { runs: 0, ops: 0, starts: 0, refusedStarts: 0, batches: 0, patchBatches: 0, stoppedSeen: 0 };

describe('property: a job runs iff no revocation since its epoch reaches it', () => {
  it('holds after every step of random PATCH, /revocations, kill-lift and start sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        const t = `prop${++runs}`;
        figures.runs++;
        expect(
          (
            await svc.admin('POST', '/v1/tenants', {
              id: t,
              settings: {
                grants: { mail: [...SCOPES] },
                start_roles: ['admin'],
                start_teams: ['ops'],
                people: {
                  'user:ada': { roles: ['admin'], teams: ['ops'] },
                  'user:bob': { roles: ['admin'], teams: [] },
                  'user:cy': { roles: [], teams: ['ops'] },
                },
              },
            })
          ).status,
        ).toBe(201);
        await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe', 'clerk'] });
        await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'mail', functions: ['send'], agents: ['postman'] });

        const jobs: { id: string; epoch: number; chain: Chain }[] = [];
        const revocations: { epoch: number; revocation: Revocation }[] = [];
        let model: Model = {
          grants: [...SCOPES],
          people: { 'user:ada': { roles: ['admin'], teams: ['ops'] }, 'user:bob': { roles: ['admin'], teams: [] }, 'user:cy': { roles: [], teams: ['ops'] } },
          start_roles: ['admin'],
          start_teams: ['ops'],
          killed: new Set(),
          keys: new Set(),
          epoch: 1,
        };
        /** The model's batch: one epoch step; the service's answer must agree with it. */
        const record = (
          before: Model,
          after: Model,
          items: Record<string, unknown>[],
          narrowed: string[],
          answer: { epoch: number; receipt: { revocations: Revocation[] } },
        ) => {
          after.epoch = before.epoch + 1;
          const expected = judge(before, after, items, narrowed);
          expect(answer.epoch).toBe(after.epoch);
          sameSet(answer.receipt.revocations, expected);
          expected.forEach((revocation) => revocations.push({ epoch: after.epoch, revocation }));
          model = after;
        };

        for (const [n, o] of ops.entries()) {
          figures.ops++;
          if (o.op === 'start') {
            const [plugin, agent] = o.agent.split('/');
            const r = await svc.admin('POST', `/v1/tenants/${t}/jobs`, { id: `j${n}`, agent, plugin, subject: o.subject, purpose: 'routine:p' });
            const refused =
              model.killed.has(o.agent) ||
              (o.subject.startsWith('apikey:') && model.keys.has(o.subject.slice(7))) ||
              (o.subject.startsWith('user:') && !hasPath(model, o.subject));
            expect(r.status).toBe(refused ? 403 : 201);
            if (r.status === 201) {
              figures.starts++;
              jobs.push({ id: `j${n}`, epoch: r.body.envelope.blocks[0].block.epoch, chain: r.body.envelope.blocks });
            } else {
              figures.refusedStarts++;
              expect(r.body.error).toBe('revoked');
            }
          } else if (o.op === 'revoke') {
            const r = await svc.admin('POST', `/v1/tenants/${t}/revocations`, { revocations: o.items });
            expect(r.status).toBe(200);
            figures.batches++;
            const after = clone(model);
            const narrowed: string[] = [];
            for (const i of o.items) {
              if (i.kind === 'kill_agent') after.killed.add(i.agent as string);
              if (i.kind === 'api_key_revoked') after.keys.add(i.key as string);
              if (i.kind === 'grant_narrowed') {
                after.grants = after.grants.filter((g) => g !== i.scope);
                narrowed.push(i.scope as string);
              }
              if (i.kind === 'person_change') {
                const p = after.people[i.person as string] ?? { roles: [], teams: [] };
                after.people[i.person as string] = {
                  roles: p.roles.filter((x) => !((i.remove_roles as string[] | undefined) ?? []).includes(x)),
                  teams: p.teams.filter((x) => !((i.remove_teams as string[] | undefined) ?? []).includes(x)),
                };
              }
            }
            record(model, after, o.items, narrowed, r.body);
          } else if (o.op === 'patch') {
            const r = await svc.admin('PATCH', `/v1/tenants/${t}`, o.changes);
            expect(r.status).toBe(200);
            const c = o.changes as Partial<Pick<Model, 'people' | 'start_roles' | 'start_teams'>> & { grants?: { mail: string[] } };
            const after = clone(model);
            if (c.grants) after.grants = [...c.grants.mail];
            if (c.people) after.people = structuredClone(c.people);
            if (c.start_roles) after.start_roles = [...c.start_roles];
            if (c.start_teams) after.start_teams = [...c.start_teams];
            const lost = (a: string[], b: string[] | undefined) => a.some((x) => !(b ?? []).includes(x));
            const narrowed = model.grants.filter((g) => !after.grants.includes(g));
            const withdrawn =
              narrowed.length > 0 ||
              lost(model.start_roles, after.start_roles) ||
              lost(model.start_teams, after.start_teams) ||
              PEOPLE.some((p) => lost(model.people[p]!.roles, after.people[p]?.roles) || lost(model.people[p]!.teams, after.people[p]?.teams));
            expect(r.body.revocation !== undefined).toBe(withdrawn);
            if (withdrawn) {
              figures.patchBatches++;
              expect(r.body.revocation.epoch).toBe(r.body.tenant.authority_epoch);
              record(model, after, [], narrowed, r.body.revocation);
            } else {
              expect(r.body.tenant.authority_epoch).toBe(model.epoch);
              model = after;
            }
          } else {
            const r = await svc.admin('DELETE', `/v1/tenants/${t}/kills/${o.agent}`);
            expect(r.status).toBe(model.killed.has(o.agent) ? 200 : 404);
            model.killed.delete(o.agent);
          }
          for (const job of jobs) {
            const reached = revocations.some((r) => r.epoch > job.epoch && reaches(r.revocation, job.chain));
            const status = (await svc.admin('GET', `/v1/tenants/${t}/jobs/${job.id}`)).body.job.status;
            expect({ job: job.id, status }).toEqual({ job: job.id, status: reached ? 'stopped' : 'running' });
          }
        }
        figures.stoppedSeen += jobs.filter((job) => revocations.some((r) => r.epoch > job.epoch && reaches(r.revocation, job.chain))).length;
      }),
      { numRuns: 25, seed: Number(process.env.PROPERTY_SEED ?? 1212) },
    );
    console.log(`revocation property: ${JSON.stringify(figures)}`);
    // The runs must exercise both sides of the "iff".
    expect(figures.stoppedSeen).toBeGreaterThan(0);
    expect(figures.starts - figures.stoppedSeen).toBeGreaterThan(0);
  }, 120_000);
});
