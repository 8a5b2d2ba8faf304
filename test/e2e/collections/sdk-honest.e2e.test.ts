import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordsMcpServer } from '../../../adapters/mcp/records-server.ts';
import { createRecords, recordsClient } from '../../../sdk/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/** The SDK and MCP report success only when the service stored it; every id reaches its own record. */
let svc: TestService;
let key: string;
let stranger: http.Server;
let strangerUrl: string;
const collections = { notes: { fields: ['kind'] } };

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  key = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'honest' })).body.key;
  // Another server that answers every request 404 {"error":"not_found"}.
  stranger = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}'));
  await new Promise<void>((resolve) => stranger.listen(0, '127.0.0.1', resolve));
  strangerUrl = `http://127.0.0.1:${(stranger.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => stranger?.close(resolve));
  await svc?.stop();
});

const agentRecordIds = async () => {
  const { rows } = await svc.pool.query(`SELECT count(*)::int AS n FROM custodian_events WHERE type = 'AgentRecordPut'`);
  return rows[0].n as number;
};

describe('SDK: ids reach their own record', () => {
  it('ids ".", "..", "%2E", "a/b" and "?x#y" are each kept, read back and deleted as themselves', async () => {
    const records = createRecords({ url: svc.url, key, collections });
    const ids = ['.', '..', '%2E', 'a/b', '?x#y'];
    for (const [i, id] of ids.entries()) await records.put('notes', id, { n: i });
    for (const [i, id] of ids.entries()) expect(await records.get('notes', id)).toEqual({ n: i });
    expect((await records.query('notes')).map((e) => e.id).sort()).toEqual([...ids].sort());
    expect(await records.delete('notes', '..')).toBe(true);
    expect(await records.get('notes', '..')).toBeNull();
    expect(await records.get('notes', '.')).toEqual({ n: 0 });
  });
});

describe('SDK: only a record the service says is absent reads as absent', () => {
  it('a wrong path under the service: every call is an Error saying to check the url, put stores nothing', async () => {
    const before = await agentRecordIds();
    const records = createRecords({ url: `${svc.url}/wrong`, key, collections });
    await expect(records.put('notes', 'x', { a: 1 })).rejects.toThrow(/check the url/);
    await expect(records.get('notes', 'x')).rejects.toThrow(/check the url/);
    const client = recordsClient(`${svc.url}/wrong`, key);
    await expect(client.put('notes', 'x', { a: 1 }, null)).rejects.toThrow(/records: /);
    await expect(client.forget('ada', [])).rejects.toThrow(/records: /);
    await expect(client.collections()).rejects.toThrow(/records: /);
    await expect(client.get('notes', 'x')).rejects.toThrow(/records: /);
    expect(await agentRecordIds()).toBe(before);
  });

  it("another server's 404 not_found is an Error, never absent nor done", async () => {
    const client = recordsClient(strangerUrl, key);
    await expect(client.get('notes', 'x')).rejects.toThrow(/records: /);
    await expect(client.put('notes', 'x', { a: 1 }, null)).rejects.toThrow(/records: /);
    await expect(client.delete('notes', 'x')).rejects.toThrow(/records: /);
  });

  it('get of a record never kept resolves to null; of an undeclared collection it throws the service message', async () => {
    const records = createRecords({ url: svc.url, key, collections });
    expect(await records.get('notes', 'never-kept')).toBeNull();
    await expect(recordsClient(svc.url, key).get('nothing', 'x')).rejects.toThrow(/^records: no collection named nothing/);
  });
});

describe('SDK: a __proto__ key is refused naming its path, as the service refuses it', () => {
  it('from JSON and as a literal, at the top and nested, over the service and in memory', async () => {
    const before = await agentRecordIds();
    for (const records of [createRecords({ url: svc.url, key, collections }), createRecords({ store: 'memory', collections })]) {
      await expect(records.put('notes', 'p', JSON.parse('{"__proto__": {"x": 1}, "b": 2}'))).rejects.toThrow(
        'records: value.__proto__ is a reserved key: rename it',
      );
      await expect(records.put('notes', 'p', { a: JSON.parse('{"__proto__": {"x": 1}}') })).rejects.toThrow(
        'records: value.a.__proto__ is a reserved key: rename it',
      );
      await expect(records.put('notes', 'p', { __proto__: { x: 1 }, b: 2 })).rejects.toThrow('records: value.__proto__ is a reserved key: rename it');
      await expect(records.put('notes', 'p', { constructor: 1 })).rejects.toThrow('records: value.constructor is a reserved key: rename it');
    }
    expect(await agentRecordIds()).toBe(before);
  });
});

describe('MCP: a tool answers success only when the service stored it', () => {
  const connect = async (url: string) => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1.0.0' });
    await Promise.all([recordsMcpServer(recordsClient(url, key), 'test').connect(a), client.connect(b)]);
    return async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      return { isError: r.isError === true, text: (r.content as { text: string }[])[0]!.text };
    };
  };

  it('records_put with id ".." stores it under ".."; a __proto__ key is a tool error and stores nothing', async () => {
    const call = await connect(svc.url);
    const put = await call('records_put', { collection: 'notes', id: '..', value: { kept: true } });
    expect(put.isError).toBe(false);
    expect(JSON.parse(put.text)).toMatchObject({ id: '..' });
    expect(JSON.parse((await call('records_get', { collection: 'notes', id: '..' })).text)).toEqual({ kept: true });
    const before = await agentRecordIds();
    const proto = await call('records_put', { collection: 'notes', id: 'p', value: JSON.parse('{"__proto__": {"x": 1}, "b": 2}') });
    expect(proto).toEqual({ isError: true, text: expect.stringContaining('records: value.__proto__ is a reserved key: rename it') });
    expect(await agentRecordIds()).toBe(before);
  });

  it('pointed at a wrong path, records_put, records_forget and records_collections are tool errors', async () => {
    const call = await connect(`${svc.url}/wrong`);
    for (const [name, args] of [
      ['records_put', { collection: 'notes', id: 'x', value: { a: 1 } }],
      ['records_forget', { person: 'ada' }],
      ['records_collections', {}],
    ] as const) {
      const r = await call(name, args);
      expect(r.isError, `${name}: ${r.text}`).toBe(true);
      expect(r.text).toContain('records: ');
    }
  });
});
