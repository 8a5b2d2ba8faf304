import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecords, recordsClient } from '../../../sdk/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * The service answers an undeclared collection with the call of the surface that asked: plain
 * HTTP (and Go) the route, MCP its tool, Python its class, the TypeScript SDK createRecords. A
 * client names itself in x-custodian-client; the MCP server and the Python client are held to
 * it in their own suites (mcp.e2e.test.ts, clients/python).
 */
let svc: TestService;
let key: string;
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  key = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'surfaces' })).body.key;
}, 120_000);
afterAll(async () => svc?.stop());

const messageFor = async (client?: string) => {
  const res = await fetch(`${svc.url}/v1/agent/records/orders/o1`, {
    headers: { authorization: `Bearer ${key}`, ...(client === undefined ? {} : { 'x-custodian-client': client }) },
  });
  expect(res.status).toBe(404);
  return ((await res.json()) as { message: string }).message;
};

describe('an undeclared collection is declared the way of the surface that asked', () => {
  it('HTTP without a header, or with a name the service does not know, is told the route', async () => {
    for (const client of [undefined, 'cobol', 'http'])
      expect(await messageFor(client)).toBe(
        'records: no collection named orders: declare it first: PUT /v1/agent/collections with {"collections": {"orders": {"people": [], "fields": []}}}',
      );
  });

  it('each named surface is told its own call', async () => {
    expect(await messageFor('mcp')).toContain('with the records_declare tool');
    expect(await messageFor('python')).toContain('declare it in AgentRecords(url, key, collections={"orders": ');
    expect(await messageFor('go')).toContain('PUT /v1/agent/collections');
    expect(await messageFor('typescript')).toContain('declare it in createRecords({ collections: ');
  });

  it('the TypeScript SDK, over HTTP and in memory, says createRecords', async () => {
    const remote = createRecords({ url: svc.url, key, collections: { questions: {} } });
    const memory = createRecords({ store: 'memory', collections: { questions: {} } });
    for (const r of [remote, memory])
      await expect(r.get('orders', 'o1')).rejects.toThrow(
        'records: no collection named orders: declare it in createRecords({ collections: { "orders": { people: [], fields: [] } } })',
      );
  });

  it('a client built for MCP says the records_declare tool', async () => {
    await expect(recordsClient(svc.url, key, 'mcp').get('orders', 'o1')).rejects.toThrow('declare it first with the records_declare tool');
  });
});
