import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

const DAY = 86_400_000;
let svc: TestService;
let s: Caller;
const shown = (r: { body: any }) => r.body.records.map((x: any) => `${x.key}@${x.version}:${x.state}${x.closed ? ':closed' : ''}`);

/**
 * SPEC §4 "Start-up reads": versions that are deleted, closed or past their own end stay out
 * of a start-up ticket's answers even when the record's newest version is live.
 */
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  await svc.admin('POST', '/v1/tenants', { id: 'boot' });
  await svc.admin('POST', '/v1/tenants/boot/plugins', { name: 'notes', functions: ['save', 'boot'], agents: ['scribe'], startup: 'boot' });
  const now0 = (await svc.admin('POST', '/v1/_clock', { advance_ms: 0 })).body.now_ms;
  const w = await caller(svc, 'boot', { input: 'startup', start: { timeout_ms: 30 * DAY } });
  const put = async (key: string, expect: number, extra: Record<string, unknown> = {}) => {
    const r = await w.rec({ op: 'put', scope: 'project:a', record_key: key, body: { key, expect }, expect, ...extra });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  };
  // revived: active, deleted, active again.
  await put('revived', 0);
  await put('revived', 1, { state: 'deleted' });
  await put('revived', 2);
  // reopened: active, closed, active again.
  await put('reopened', 0);
  await put('reopened', 1, { closed: true });
  await put('reopened', 2);
  // extended: its first version's end passes, its second's does not.
  await put('extended', 0, { ends_at: now0 + DAY });
  await put('extended', 1, { ends_at: now0 + 20 * DAY });
  // waiting: the version in force was deleted, a newer one waits as a draft.
  await put('waiting', 0, { state: 'deleted' });
  await put('waiting', 1, { state: 'draft' });
  await svc.admin('POST', '/v1/_clock', { advance_ms: 2 * DAY });
  s = await caller(svc, 'boot', { input: 'startup', fn: 'boot', startup: true, job: w.job, start: { timeout_ms: 30 * DAY } });
});
afterAll(async () => svc?.stop());

describe('start-up tickets never see ended, closed or deleted records or versions', () => {
  it('get with an explicit version of a deleted, closed or ended version answers {}', async () => {
    expect((await s.rec({ op: 'get', scope: 'project:a', record_key: 'revived', version: 2 })).body).not.toHaveProperty('record');
    expect((await s.rec({ op: 'get', scope: 'project:a', record_key: 'reopened', version: 2 })).body).not.toHaveProperty('record');
    expect((await s.rec({ op: 'get', scope: 'project:a', record_key: 'extended', version: 1 })).body).not.toHaveProperty('record');
    // The live versions are still shown.
    expect((await s.rec({ op: 'get', scope: 'project:a', record_key: 'revived', version: 1 })).body.record).toMatchObject({ version: 1, state: 'active' });
    expect((await s.rec({ op: 'get', scope: 'project:a', record_key: 'extended', version: 0 })).body.record).toMatchObject({ version: 2 });
  });

  it('history leaves out the deleted, closed and ended versions', async () => {
    expect(shown(await s.rec({ op: 'history', scope: 'project:a', record_key: 'revived' }))).toEqual(['revived@3:active', 'revived@1:active']);
    expect(shown(await s.rec({ op: 'history', scope: 'project:a', record_key: 'reopened' }))).toEqual(['reopened@3:active', 'reopened@1:active']);
    expect(shown(await s.rec({ op: 'history', scope: 'project:a', record_key: 'extended' }))).toEqual(['extended@2:active']);
  });

  it('list with newest_in and states never picks a deleted version', async () => {
    const r = await s.rec({ op: 'list', list: { states: ['deleted', 'active'], newest_in: true, ended: true, deleted: true } });
    expect(shown(r)).toEqual(['extended@2:active', 'reopened@3:active', 'revived@3:active']);
    expect(shown(await s.rec({ op: 'list', list: { states: ['deleted'], newest_in: true } }))).toEqual([]);
  });

  it('an ordinary ticket still sees every version it asks for', async () => {
    const o = await caller(svc, 'boot', { input: 'startup', start: { timeout_ms: 30 * DAY } });
    expect((await o.rec({ op: 'get', scope: 'project:a', record_key: 'revived', version: 2 })).body.record).toMatchObject({ state: 'deleted' });
    expect(shown(await o.rec({ op: 'history', scope: 'project:a', record_key: 'reopened' }))).toEqual([
      'reopened@3:active',
      'reopened@2:active:closed',
      'reopened@1:active',
    ]);
  });
});
