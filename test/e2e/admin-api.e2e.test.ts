import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTicket } from '../../queries/tickets.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect(
    (await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save', 'boot'], agents: ['scribe'], startup: 'boot' })).status,
  ).toBe(201);
});
afterAll(async () => {
  await svc?.stop();
});

const job = (id: string, extra: Record<string, unknown> = {}) =>
  svc.admin('POST', '/v1/tenants/acme/jobs', { id, agent: 'scribe', plugin: 'notes', subject: 'case-7', input: { ask: 'summarise' }, ...extra });

describe('admin API: tenants and plugins', () => {
  it('creates a tenant with defaults, reads it back, and changes its settings', async () => {
    const created = await svc.admin('POST', '/v1/tenants', { id: 'beta', settings: { retention_days: 30, caps: { records: 10, bytes: 1000 } } });
    expect(created.status).toBe(201);
    expect(created.body.tenant).toMatchObject({
      id: 'beta',
      authority_epoch: 1,
      settings: { retention_days: 30, default_end_days: 90, caps: { records: 10, bytes: 1000 } },
    });
    const patched = await svc.admin('PATCH', '/v1/tenants/beta', { label_walls: [['secret', 'public']], grants: { notes: ['plugin:search'] } });
    expect(patched.status).toBe(200);
    expect(patched.body.tenant.settings).toMatchObject({ label_walls: [['secret', 'public']], retention_days: 30 });
    const read = await svc.admin('GET', '/v1/tenants/beta');
    expect(read.body.tenant).toMatchObject({ id: 'beta', settings: { label_walls: [['secret', 'public']], grants: { notes: ['plugin:search'] } } });
    expect((await svc.admin('POST', '/v1/tenants', { id: 'beta' })).body).toEqual({ error: 'already_exists', message: expect.any(String), tenant: 'beta' });
    expect((await svc.admin('PATCH', '/v1/tenants/nobody', { retention_days: 1 })).status).toBe(404);
  });

  it('installs a plugin again as an upgrade that keeps its install_gen (SPEC §6)', async () => {
    const again = await svc.admin('POST', '/v1/tenants/beta/plugins', { name: 'tool', functions: ['a'], agents: [] });
    expect(again.body).toMatchObject({ install_gen: 1, plugin: { name: 'tool', scopes: ['agent', 'project', 'tenant'] } });
    const second = await svc.admin('POST', '/v1/tenants/beta/plugins', { name: 'tool', functions: ['a', 'b'], agents: [], scopes: ['tenant'] });
    expect(second.body).toMatchObject({ install_gen: 1, plugin: { functions: ['a', 'b'], scopes: ['tenant'] } });
  });
});

describe('admin API: jobs and calls', () => {
  it('starts a job storing agent, plugin, purpose, subject, data subject and labels', async () => {
    const started = await job('j-store', { data_subject: 'user:ada', labels: ['pii'] });
    expect(started.status).toBe(201);
    expect(started.body.job).toMatchObject({
      id: 'j-store',
      agent: 'scribe',
      plugin: 'notes',
      subject: 'case-7',
      data_subject: 'user:ada',
      labels: ['pii'],
      status: 'running',
      purpose: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const named = await svc.admin('POST', '/v1/tenants/acme/jobs', { agent: 'scribe', plugin: 'notes', subject: 's', purpose: 'routine:nightly' });
    expect(named.body.job).toMatchObject({ purpose: 'routine:nightly', id: expect.any(String) });
    const read = await svc.admin('GET', '/v1/tenants/acme/jobs/j-store');
    expect(read.body.job).toMatchObject({ id: 'j-store', data_subject: 'user:ada', status: 'running' });
  });

  it('answers a retried start with the same job, and another start under the id with already_exists', async () => {
    const first = await job('j-retry');
    const retry = await job('j-retry');
    expect(retry.status).toBe(200);
    expect(retry.body.job).toEqual(first.body.job);
    const other = await job('j-retry', { subject: 'another' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: 'already_exists', job: { id: 'j-retry', subject: 'case-7' } });
  });

  it('mints a call whose ticket works until the call ends, and is stored only as a hash', async () => {
    await job('j-call');
    const minted = await svc.admin('POST', '/v1/tenants/acme/jobs/j-call/calls', { function: 'save' });
    expect(minted.status).toBe(201);
    const meta = minted.body._meta;
    expect(meta['oz0/records']).toMatchObject({ url: `${svc.url}/v1/records`, agent: 'scribe' });
    const ticket: string = meta['oz0/records'].ticket;
    expect(Buffer.from(ticket, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(meta['oz0/idempotency_key']).toEqual(expect.any(String));
    expect(await resolveTicket(svc.pool, ticket)).toMatchObject({ tenant: 'acme', job: 'j-call', call: minted.body.call.id, step: 1 });

    const { rows } = await svc.pool.query(`SELECT count(*)::int AS n FROM custodian_events WHERE data::text LIKE $1`, [`%${ticket}%`]);
    expect(rows[0].n).toBe(0);
    const { rows: calls } = await svc.pool.query(`SELECT count(*)::int AS n FROM rm_calls WHERE row_to_json(rm_calls)::text LIKE $1`, [`%${ticket}%`]);
    expect(calls[0].n).toBe(0);

    const ended = await svc.admin('POST', `/v1/tenants/acme/jobs/j-call/calls/${minted.body.call.id}/end`);
    expect(ended.status).toBe(200);
    // Dead the moment the answer arrives: no waiting.
    expect(await resolveTicket(svc.pool, ticket)).toBeNull();
    expect((await svc.admin('POST', `/v1/tenants/acme/jobs/j-call/calls/${minted.body.call.id}/end`, {})).status).toBe(200);
  });

  it('retries a step with a new ticket and the same idempotency key, killing the old ticket', async () => {
    await job('j-step');
    const a = await svc.admin('POST', '/v1/tenants/acme/jobs/j-step/calls', { function: 'save', step: 4 });
    const b = await svc.admin('POST', '/v1/tenants/acme/jobs/j-step/calls', { function: 'save', step: 4 });
    expect(b.body._meta['oz0/idempotency_key']).toBe(a.body._meta['oz0/idempotency_key']);
    expect(b.body._meta['oz0/records'].ticket).not.toBe(a.body._meta['oz0/records'].ticket);
    expect(await resolveTicket(svc.pool, a.body._meta['oz0/records'].ticket)).toBeNull();
    expect(await resolveTicket(svc.pool, b.body._meta['oz0/records'].ticket)).not.toBeNull();
  });

  it('refuses a function outside the scopes and a startup call for a non-startup function', async () => {
    await job('j-scope');
    const outside = await svc.admin('POST', '/v1/tenants/acme/jobs/j-scope/calls', { function: 'mail/send' });
    expect(outside.status).toBe(403);
    expect(outside.body).toMatchObject({ error: 'scope', function: 'mail/send' });
    const startup = await svc.admin('POST', '/v1/tenants/acme/jobs/j-scope/calls', { function: 'boot', startup: true });
    expect(startup.status).toBe(201);
    expect(startup.body.call.startup).toBe(true);
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs/j-scope/calls', { function: 'save', startup: true })).status).toBe(400);
  });

  it('ending a job kills its tickets and refuses new calls; starting the id again is a new run', async () => {
    await job('j-end');
    const minted = await svc.admin('POST', '/v1/tenants/acme/jobs/j-end/calls', { function: 'save' });
    const ended = await svc.admin('POST', '/v1/tenants/acme/jobs/j-end/end');
    expect(ended.body.job).toMatchObject({ status: 'ended' });
    expect(await resolveTicket(svc.pool, minted.body._meta['oz0/records'].ticket)).toBeNull();
    const refused = await svc.admin('POST', '/v1/tenants/acme/jobs/j-end/calls', { function: 'save' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'job_not_running', message: expect.any(String), status: 'ended' });
    const again = await job('j-end');
    expect(again.status).toBe(201);
    expect(again.body.job).toMatchObject({ run: 2, status: 'running' });
  });

  it('moves the service clock with POST /v1/_clock: a job past its timeout mints no calls', async () => {
    await job('j-clock', { timeout_ms: 60_000 });
    // The service read its clock after this: its answer is at least 61 s past it, however long the request took.
    const before = Date.now();
    const moved = await svc.admin('POST', '/v1/_clock', { advance_ms: 61_000 });
    expect(moved.status).toBe(200);
    expect(moved.body.now_ms).toBeGreaterThanOrEqual(before + 61_000);
    const refused = await svc.admin('POST', '/v1/tenants/acme/jobs/j-clock/calls', { function: 'save' });
    expect(refused.body).toEqual({ error: 'job_not_running', message: expect.any(String), status: 'expired' });
  });

  it('answers unknown tenants, jobs, calls and routes with 404 JSON', async () => {
    expect((await svc.admin('POST', '/v1/tenants/nobody/jobs', { agent: 'scribe', plugin: 'notes', subject: 's' })).body).toEqual({
      error: 'not_found',
      message: expect.any(String),
      what: 'tenant',
    });
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs', { agent: 'scribe', plugin: 'ghost', subject: 's' })).body).toEqual({
      error: 'not_found',
      message: expect.any(String),
      what: 'plugin',
      plugin: 'ghost',
    });
    expect((await svc.admin('GET', '/v1/tenants/acme/jobs/none')).status).toBe(404);
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs/none/calls', { function: 'save' })).body).toEqual({
      error: 'not_found',
      message: expect.any(String),
      what: 'job',
    });
    expect((await svc.admin('POST', `/v1/tenants/acme/jobs/j-store/calls/${crypto.randomUUID()}/end`)).body).toEqual({
      error: 'not_found',
      message: expect.any(String),
      what: 'call',
    });
    expect((await svc.admin('GET', '/v1/nothing-here')).status).toBe(404);
  });
});

describe('admin API: every refusal is a 4xx JSON error that writes nothing', () => {
  const uuid = '00000000-0000-4000-8000-000000000000';
  // [method, path, a body of the right shape, a body with a wrong type]
  const endpoints: [string, string, unknown, unknown][] = [
    ['POST', '/v1/tenants', { id: 'gamma' }, { id: 5 }],
    ['GET', '/v1/tenants/acme', undefined, undefined],
    ['PATCH', '/v1/tenants/acme', { retention_days: 30 }, { retention_days: '30' }],
    ['POST', '/v1/tenants/acme/plugins', { name: 'p2', functions: ['f'], agents: [] }, { name: 'p2', functions: 'f', agents: [] }],
    ['POST', '/v1/tenants/acme/jobs', { agent: 'scribe', plugin: 'notes', subject: 's' }, { agent: 'scribe', plugin: 'notes', subject: 7 }],
    ['GET', '/v1/tenants/acme/jobs/j-store', undefined, undefined],
    ['POST', '/v1/tenants/acme/jobs/j-store/calls', { function: 'save' }, { function: 'save', step: 'one' }],
    ['POST', `/v1/tenants/acme/jobs/j-store/calls/${uuid}/end`, {}, []],
    ['POST', '/v1/tenants/acme/jobs/j-store/end', {}, 'text'],
    ['POST', '/v1/_clock', { advance_ms: 1 }, { advance_ms: 'soon' }],
  ];

  const expectRefusal = (r: { status: number; body: any }, status?: number) => {
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    if (status) expect(r.status).toBe(status);
    expect(typeof r.body).toBe('object');
    expect(typeof r.body.error).toBe('string');
  };

  it.each(endpoints)('%s %s', async (method, path, good, wrongType) => {
    const head = await svc.lastPosition();

    expectRefusal(await svc.admin(method, path, good, { authorization: '' }), 401);
    expectRefusal(await svc.admin(method, path, good, { authorization: 'Bearer wrong-key' }), 401);
    expectRefusal(await svc.admin(method, path, good, { authorization: `Basic ${Buffer.from('admin:x').toString('base64')}` }), 401);
    expect((await svc.admin(method, path, good, { authorization: '' })).body).toEqual({
      error: 'unauthorized',
      message: expect.any(String),
      reason: expect.any(String),
    });

    if (method !== 'GET') {
      const malformed = await svc.admin(method, path, '{"id": "x",');
      expectRefusal(malformed, 400);
      expect(malformed.body).toEqual({ error: 'invalid', message: expect.any(String), field: 'body', reason: 'body is not valid JSON' });

      const unknown = await svc.admin(method, path, { ...(good as object), surprise: true });
      expectRefusal(unknown, 400);
      expect(unknown.body).toEqual({ error: 'invalid', message: expect.any(String), field: 'surprise', reason: 'unknown field', allowed: expect.any(Array) });
      expect(unknown.body.allowed).not.toContain('surprise');
      expect(unknown.body.message).toContain('surprise is not a field of the body');

      const wrong = await svc.admin(method, path, wrongType);
      expectRefusal(wrong, 400);
      expect(wrong.body.error).toBe('invalid');

      expectRefusal(await svc.admin(method, path, 'plain text', { 'content-type': 'text/plain' }), 415);
    }
    expect(await svc.lastPosition()).toBe(head);
  });

  it('refuses bad path parameters as invalid', async () => {
    const r = await svc.admin('POST', '/v1/tenants/NOT%20OK/plugins', { name: 'p', functions: [], agents: [] });
    expectRefusal(r, 400);
    expect(r.body).toMatchObject({ error: 'invalid', field: 'params.t' });
  });

  it('keeps /v1/_clock off unless CUSTODIAN_TEST_CLOCK=1', async () => {
    const plain = await startTestService({ testClock: false });
    try {
      expectRefusal(await plain.admin('POST', '/v1/_clock', { advance_ms: 1 }), 404);
    } finally {
      await plain.stop();
    }
  });
});

describe('system endpoints', () => {
  it('serves health, an OpenAPI 3.1 document of the admin API, and metrics', async () => {
    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', event_store: 'postgres' });
    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, any> };
    expect(doc.openapi).toBe('3.1.0');
    for (const p of [
      '/v1/tenants',
      '/v1/tenants/{t}',
      '/v1/tenants/{t}/plugins',
      '/v1/tenants/{t}/jobs',
      '/v1/tenants/{t}/jobs/{id}/calls',
      '/v1/tenants/{t}/jobs/{id}/calls/{call}/end',
      '/v1/tenants/{t}/jobs/{id}/end',
    ])
      expect(Object.keys(doc.paths)).toContain(p);
    const startJob = doc.paths['/v1/tenants/{t}/jobs'].post.requestBody.content['application/json'].schema;
    expect(startJob.properties).toHaveProperty('agent');
    expect(startJob.additionalProperties).toBe(false);
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    expect(metrics).toContain('custodian_http_requests_total');
  });
});
