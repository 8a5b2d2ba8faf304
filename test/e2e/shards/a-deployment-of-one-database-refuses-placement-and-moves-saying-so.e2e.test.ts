import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let doc: any;
beforeAll(async () => {
  svc = await startTestService();
  doc = await (await fetch(`${svc.url}/openapi.json`)).json();
}, 120_000);
afterAll(async () => svc?.stop());

describe('a deployment of one database (CUSTODIAN_DATABASES unset)', () => {
  it('refuses database in POST /v1/tenants saying it has one database and how to name more, and creates nothing', async () => {
    const refused = await svc.admin('POST', '/v1/tenants', { id: 'placed', database: 'db1' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid', field: 'database', message: expect.stringContaining('this deployment has one database') });
    expect(refused.body.message).toContain('CUSTODIAN_DATABASES=<name>=<postgres URL>');
    expect((await svc.admin('GET', '/v1/tenants/placed')).status).toBe(404);
    expect((await svc.admin('POST', '/v1/tenants', { id: 'placed' })).status).toBe(201);
  });

  it('refuses a move of a tenant saying the same, and a move of no tenant as not found', async () => {
    expect((await svc.admin('POST', '/v1/tenants', { id: 'stays' })).status).toBe(201);
    const refused = await svc.admin('POST', '/v1/tenants/stays/move', { to: 'db2' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid', field: 'to', message: expect.stringContaining('this deployment has one database') });
    expect((await svc.admin('GET', '/v1/tenants/stays')).body).not.toHaveProperty('database');
    expect((await svc.admin('POST', '/v1/tenants/nobody/move', { to: 'db2' })).status).toBe(404);
    expect((await svc.admin('POST', '/v1/tenants/stays/move', { to: 'db2', now: true })).body).toMatchObject({ error: 'invalid' });
    const anonymous = await fetch(`${svc.url}/v1/tenants/stays/move`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"to":"db2"}',
    });
    expect(anonymous.status).toBe(401);
  });

  it('is described by /openapi.json as the router of several databases answers it', () => {
    const create = doc.paths['/v1/tenants'].post;
    expect(create.requestBody.content['application/json'].schema.properties.database).toMatchObject({ type: 'string', pattern: expect.any(String) });
    const tenant = (status: string, path: string, method: string) => doc.paths[path][method].responses[status].content['application/json'].schema;
    expect(tenant('201', '/v1/tenants', 'post').properties.database).toMatchObject({ type: 'string' });
    expect(tenant('200', '/v1/tenants/{t}', 'get').properties.database).toMatchObject({ type: 'string' });
    const move = doc.paths['/v1/tenants/{t}/move'].post;
    expect(move.security).toEqual([{ admin: [] }]);
    expect(move.requestBody.content['application/json'].schema).toMatchObject({ required: ['to'], additionalProperties: false });
    expect(Object.keys(move.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '409', '503']));
    expect(Object.keys(tenant('200', '/v1/tenants/{t}/move', 'post').properties)).toEqual(
      expect.arrayContaining(['tenant', 'from', 'to', 'moved', 'events', 'audit', 'paused_ms']),
    );
    const codes = JSON.stringify(doc.components.schemas.Refusal);
    for (const code of ['moving', 'move_failed']) expect(codes).toContain(`"${code}"`);
  });
});
