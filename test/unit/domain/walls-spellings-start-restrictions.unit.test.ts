import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { jobDecider, type JobCommand, type StartJobRequest } from '../../../domain/jobs/decide.ts';
import type { JobStreamEvent } from '../../../domain/jobs/state.ts';
import { fold } from '../../../domain/shared/decider.ts';
import { subjectProblem } from '../../../domain/shared/subjects.ts';
import { tenantDecider, type TenantCommand } from '../../../domain/tenants/decide.ts';
import { defaultSettings, settingsProblem, type TenantSettings } from '../../../domain/tenants/settings.ts';
import type { TenantStreamEvent } from '../../../domain/tenants/state.ts';
import { hasStartPath, isPerson } from '../../../domain/tenants/start-paths.ts';

/** The decider rules behind the red-team items 6, 7 and 8 (given / when / then). */
const mac = (input: string) => createHmac('sha256', 'k').update(input).digest('hex');
const settings = (over: Partial<TenantSettings> = {}): TenantSettings => ({ ...defaultSettings(), ...over });
const tenant = (over: Partial<TenantSettings> = {}) =>
  fold(tenantDecider, [
    { type: 'TenantCreated', data: { tenant: 'acme', settings: settings(over), authority_epoch: 1, created_ms: 0 } },
    {
      type: 'PluginInstalled',
      data: { tenant: 'acme', name: 'notes', install_gen: 1, scopes: ['tenant'], functions: ['save'], agents: ['scribe'], startup: null, installed_ms: 0 },
    },
  ] satisfies TenantStreamEvent[]);
const start = (over: Partial<TenantSettings>, request: Partial<StartJobRequest>, parent: JobStreamEvent[] | null = null, job = 'j1') =>
  jobDecider.decide(
    {
      type: 'StartJob',
      tenant: tenant(over),
      job,
      request: { agent: 'scribe', plugin: 'notes', subject: 's', input: 'x', ...request },
      parent: parent ? fold(jobDecider, parent) : null,
      mac,
      now: 1000,
    } as JobCommand,
    fold(jobDecider, []),
  );
const ok = <T>(d: E.Either<unknown, readonly T[]>): T[] => {
  if (E.isLeft(d)) throw new Error(JSON.stringify(d.left));
  return [...d.right];
};
const walls: Partial<TenantSettings> = { label_walls: [['red', 'blue']] };

describe('walls at a start (SPEC §3 label_walls)', () => {
  it('given a wall red|blue, when a start asks for both labels, then it is refused label_wall naming the pair', () => {
    expect(start(walls, { labels: ['red', 'blue'] })).toEqual(E.left(expect.objectContaining({ error: 'label_wall', labels: ['red', 'blue'] })));
  });

  it('given a red parent, when a child adds blue, then it is refused; adding an unwalled label is not', () => {
    const parent = ok(start(walls, { labels: ['red'] }, null, 'p'));
    expect(start(walls, { parent: 'p', labels: ['blue'], input: undefined }, parent, 'c')).toEqual(
      E.left(expect.objectContaining({ error: 'label_wall', labels: ['red', 'blue'] })),
    );
    expect(E.isRight(start(walls, { parent: 'p', labels: ['green'], input: undefined }, parent, 'c'))).toBe(true);
  });

  it('given settings with a wall of one label twice, then they are invalid', () => {
    expect(
      settingsProblem(
        settings({
          label_walls: [
            ['a', 'b'],
            ['red', 'red'],
          ],
        }),
      ),
    ).toEqual({ field: 'settings.label_walls[1]', reason: expect.any(String) });
  });
});

describe('one spelling per subject (SPEC §6 revocations stick)', () => {
  it.each(['User:ada', 'USER:ada', ' user:ada', 'user:ada ', 'APIKEY:K1', 'user:a\u0007da', 'user:ada\u0085'])('refuses %j', (subject) => {
    expect(subjectProblem(subject)).not.toBeNull();
    expect(start({}, { subject })).toEqual(E.left(expect.objectContaining({ error: 'invalid', field: 'subject' })));
  });

  it.each(['user:ada', 'apikey:K1', 's', 'team:Ops Team', 'ticket-1'])('keeps %j', (subject) => {
    expect(subjectProblem(subject)).toBeNull();
  });

  it('given a person_change naming a person in another spelling, then the batch is invalid and writes nothing', () => {
    const batch: TenantCommand = {
      type: 'ApplyRevocations',
      tenant: 'acme',
      items: [{ kind: 'person_change', person: 'User:ada', remove_roles: ['x'] }],
      now: 9,
    };
    expect(tenantDecider.decide(batch, tenant())).toEqual(E.left(expect.objectContaining({ error: 'invalid', field: 'revocations[0].person' })));
  });

  it('given people keys, then they follow the same rule', () => {
    expect(settingsProblem(settings({ people: { 'User:ada': { roles: [], teams: [] } } }))).toMatchObject({ field: 'settings.people' });
    expect(settingsProblem(settings({ people: { 'user:ada': { roles: [], teams: [] } } }))).toBeNull();
  });
});

describe('turning start restrictions on (SPEC §6: a change that takes authority away is one batch)', () => {
  const change = (changes: Partial<TenantSettings>, running_subjects: string[]): TenantCommand => ({
    type: 'ChangeTenantSettings',
    tenant: 'acme',
    changes,
    running_subjects,
    now: 5,
  });
  const people = { 'user:carl': { roles: ['viewer'], teams: [] }, 'user:dora': { roles: ['starter'], teams: [] } };

  it('given no restriction, when start_roles are set, then listed people and running user: subjects left without a path are person_revoked', () => {
    const events = ok(tenantDecider.decide(change({ start_roles: ['starter'] }, ['user:eve', 's', 'user:dora']), tenant({ people })));
    const batch = events.find((e) => e.type === 'RevocationBatchApplied');
    expect(batch?.type === 'RevocationBatchApplied' && batch.data.revocations).toEqual([
      { kind: 'person_revoked', person: 'user:carl' },
      { kind: 'person_revoked', person: 'user:eve' },
    ]);
  });

  it('given no restriction and no one it leaves without a path, when start_roles are set, then it is a plain settings change', () => {
    const events = ok(tenantDecider.decide(change({ start_roles: ['starter'] }, ['s', 'user:dora']), tenant({ people: { 'user:dora': people['user:dora'] } })));
    expect(events.map((e) => e.type)).toEqual(['TenantSettingsChanged']);
  });
});

describe('property: after any settings change, no running person is left without a path and unrevoked', () => {
  const names = fc.constantFrom('user:a', 'user:b', 'user:c', 'team:x', 's');
  const roles = fc.uniqueArray(fc.constantFrom('r1', 'r2', 'r3'), { maxLength: 3 });
  const teams = fc.uniqueArray(fc.constantFrom('t1', 't2'), { maxLength: 2 });
  const people = fc.dictionary(fc.constantFrom('user:a', 'user:b', 'team:x'), fc.record({ roles, teams }), { maxKeys: 3 });
  const paths = fc.record({ start_roles: roles, start_teams: teams, people });

  it('holds for random start paths before and after, and random running subjects', () => {
    fc.assert(
      fc.property(paths, paths, fc.uniqueArray(names, { maxLength: 5 }), (before, after, running) => {
        const s = tenant(before);
        if (!s.exists) throw new Error('no tenant');
        // Only subjects that could have started are running.
        const live = running.filter((x) => !isPerson(s.settings, x) || hasStartPath(s.settings, x));
        const events = ok(tenantDecider.decide({ type: 'ChangeTenantSettings', tenant: 'acme', changes: after, running_subjects: live, now: 5 }, s));
        const batch = events.find((e) => e.type === 'RevocationBatchApplied');
        const revoked = batch?.type === 'RevocationBatchApplied' ? batch.data.revocations.flatMap((r) => (r.kind === 'person_revoked' ? [r.person] : [])) : [];
        const left = settings({ ...before, ...after });
        for (const x of live) if (isPerson(left, x) && !hasStartPath(left, x)) expect(revoked).toContain(x);
        // And no one who may still start is revoked.
        for (const x of revoked) expect(isPerson(left, x) && !hasStartPath(left, x)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
