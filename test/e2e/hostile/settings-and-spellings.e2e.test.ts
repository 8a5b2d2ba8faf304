import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * The red-team items fixed on this branch, beyond what the red-team files assert: the exact
 * answers chosen where the spec is silent (README "Choices" paragraphs).
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

const tenant = async (id: string, settings: Record<string, unknown> = {}) => {
  expect((await svc.admin('POST', '/v1/tenants', { id, settings })).status).toBe(201);
  expect((await svc.admin('POST', `/v1/tenants/${id}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
};
const put = (ticket: string, key: string) => records(svc, ticket, { op: 'put', scope: 'tenant', record_key: key, body: { a: 1 }, expect: 0 });

describe('turning start restrictions on', () => {
  it('stops the running job of a user: subject the tenant does not list, and keeps jobs of non-person subjects', async () => {
    await tenant('restrict-unlisted');
    const eve = await caller(svc, 'restrict-unlisted', { start: { subject: 'user:eve' } });
    const routine = await caller(svc, 'restrict-unlisted', { start: { subject: 'routine:nightly' } });
    const patched = await svc.admin('PATCH', '/v1/tenants/restrict-unlisted', { start_teams: ['oncall'] });
    expect(patched.status).toBe(200);
    expect(patched.body.revocation.receipt.revocations).toEqual([{ kind: 'person_revoked', person: 'user:eve' }]);
    expect(patched.body.revocation.stopped).toEqual([eve.job]);
    expect((await put(eve.ticket, 'after')).body.error).toBe('revoked');
    expect((await put(routine.ticket, 'after')).status).toBe(200);
  });
});

describe('a request id names one request', () => {
  it('refuses another request under a used id with 409 what: request_id, writing nothing; the same request is answered again', async () => {
    await tenant('rid');
    const body = { revocations: [{ kind: 'api_key_revoked', key: 'K1' }], request_id: 'r1' };
    const first = await svc.admin('POST', '/v1/tenants/rid/revocations', body);
    expect(first.status).toBe(200);
    const before = await svc.lastPosition();
    expect(await svc.admin('POST', '/v1/tenants/rid/revocations', body)).toMatchObject({
      status: 200,
      body: { epoch: first.body.epoch, receipt: first.body.receipt },
    });
    const other = await svc.admin('POST', '/v1/tenants/rid/revocations', { revocations: [{ kind: 'api_key_revoked', key: 'K2' }], request_id: 'r1' });
    expect(other).toMatchObject({ status: 409, body: { error: 'already_exists', what: 'request_id', request_id: 'r1' } });
    const install = await svc.admin('POST', '/v1/tenants/rid/plugins', { name: 'x', functions: ['f'], agents: ['a'], request_id: 'r1' });
    expect(install).toMatchObject({ status: 409, body: { error: 'already_exists', what: 'request_id' } });
    expect(await svc.lastPosition()).toBe(before);
  });
});

describe('walls in settings and at a start', () => {
  it('answers label_wall 403 naming the pair, and refuses a wall of one label twice', async () => {
    await tenant('walled', { label_walls: [['red', 'blue']] });
    const r = await svc.admin('POST', '/v1/tenants/walled/jobs', { agent: 'scribe', plugin: 'notes', subject: 's', input: 'x', labels: ['blue', 'red'] });
    expect(r).toMatchObject({ status: 403, body: { error: 'label_wall', labels: ['red', 'blue'] } });
    const self = await svc.admin('PATCH', '/v1/tenants/walled', { label_walls: [['red', 'red']] });
    expect(self).toMatchObject({ status: 400, body: { error: 'invalid', field: 'settings.label_walls[0]' } });
  });
});

describe('one spelling per subject', () => {
  it('refuses a subject with white space at an end or a capital kind prefix, and a people key spelled so', async () => {
    await tenant('spelling');
    for (const subject of ['User:ada', ' user:ada', 'user:ada\t', 'APIKEY:K1']) {
      const r = await svc.admin('POST', '/v1/tenants/spelling/jobs', { agent: 'scribe', plugin: 'notes', subject, input: 'x' });
      expect(r, subject).toMatchObject({ status: 400, body: { error: 'invalid', field: 'subject' } });
    }
    const people = await svc.admin('PATCH', '/v1/tenants/spelling', { people: { 'User:ada': { roles: [], teams: [] } } });
    expect(people).toMatchObject({ status: 400, body: { error: 'invalid', field: 'settings.people' } });
  });
});

describe('numbers kept exactly or refused', () => {
  it('refuses an integer past 2^53 − 1 naming the field, and keeps -0 as 0', async () => {
    await tenant('numbers');
    const c = await caller(svc, 'numbers');
    const big = await records(svc, c.ticket, '{"op":"put","scope":"tenant","record_key":"n","body":{"ok":1,"big":9007199254740993},"expect":0}');
    expect(big).toMatchObject({ status: 400, body: { error: 'invalid', field: 'body.big' } });
    const edge = await records(svc, c.ticket, '{"op":"put","scope":"tenant","record_key":"n","body":{"max":9007199254740991,"z":-0},"expect":0}');
    expect(edge.status).toBe(200);
    const got = await c.rec({ op: 'get', scope: 'tenant', record_key: 'n' });
    expect(got.body.record.body).toEqual({ max: 9007199254740991, z: 0 });
  });
});

describe('a path that does not decode', () => {
  it('answers the JSON refusal shape with field path', async () => {
    const res = await fetch(`${svc.url}/v1/tenants/%FF`, { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid', field: 'path' });
  });
});
