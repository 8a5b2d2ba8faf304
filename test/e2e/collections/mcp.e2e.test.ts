import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';

const bin = path.resolve(import.meta.dirname, '../../../bin/custodian.js');

let service: TestService;
let key: string;
let client: Client;
let stderr = '';
beforeAll(async () => {
  service = await startTestService();
  expect((await service.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  key = ((await service.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'desk-assistant' })).body as { key: string }).key;
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--url', service.url],
    env: { ...env, CUSTODIAN_AGENT_KEY: key },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  client = new Client({ name: 'custodian-test', version: '1.0.0' });
  // The SDK's client parses every stdout line as a frame: a stray log line would fail the session.
  await client.connect(transport);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await service?.stop();
});

const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { type: string; text: string }[])[0]!.text;
const call = async (name: string, args: Record<string, unknown>) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, text: text(r) };
};

describe('custodian mcp', () => {
  it('lists the records tools an agent author expects', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'records_collections',
      'records_declare',
      'records_delete',
      'records_forget',
      'records_get',
      'records_put',
      'records_query',
    ]);
    expect(stderr).toContain('serving agent records');
  });

  it('declares a collection, puts a record and queries it back over the service', async () => {
    expect(JSON.parse((await call('records_declare', { collections: { questions: { people: ['buyer'], fields: ['status'] } } })).text)).toEqual({
      collections: ['questions'],
    });
    expect(JSON.parse((await call('records_collections', {})).text)).toEqual({ collections: ['questions'] });
    const put = await call('records_put', { collection: 'questions', id: 'q1', value: { buyer: 'maria', status: 'waiting', question: 'lights?' } });
    expect(put.isError).toBe(false);
    expect(JSON.parse(put.text)).toEqual({ id: 'q1', createdAt: expect.any(Number), updatedAt: expect.any(Number) });
    const { entries } = JSON.parse((await call('records_query', { collection: 'questions', where: { status: 'waiting' } })).text);
    expect(entries).toEqual([
      { id: 'q1', value: { buyer: 'maria', status: 'waiting', question: 'lights?' }, createdAt: expect.any(Number), updatedAt: expect.any(Number) },
    ]);
    expect(JSON.parse((await call('records_get', { collection: 'questions', id: 'q1' })).text)).toEqual({
      buyer: 'maria',
      status: 'waiting',
      question: 'lights?',
    });
    expect(JSON.parse((await call('records_get', { collection: 'questions', id: 'none' })).text)).toBeNull();
    // The same records the HTTP API holds: what the MCP session put, the service's export shows.
    const exported = await service.admin('GET', '/v1/tenants/acme/agents/desk-assistant/records/export');
    expect(exported.body).toMatchObject({ collection: 'questions', id: 'q1' });
  });

  it('a refused put comes back as a tool error naming the limit, and writes nothing', async () => {
    const before = await service.lastPosition();
    const r = await call('records_put', { collection: 'questions', id: 'big', value: { text: 'x'.repeat(65_537) } });
    expect(r).toEqual({ isError: true, text: expect.stringMatching(/^records: value is 65,5\d\d bytes as JSON: keep it to 65,536 bytes or less$/) });
    const unknown = await call('records_put', { collection: 'orders', id: 'o1', value: {} });
    expect(unknown).toEqual({
      isError: true,
      text: 'records: no collection named orders: declare it first with the records_declare tool: {"collections": {"orders": {"people": [], "fields": []}}}',
    });
    expect(await service.lastPosition()).toBe(before);
  });

  it('a query with a budget answers fitted: whole records as many as fit, the fit note, more and next', async () => {
    await call('records_declare', { collections: { long: { fields: ['kind'] } } });
    for (let i = 0; i < 6; i++)
      await call('records_put', { collection: 'long', id: `l${i}`, value: { kind: 'k', text: `Long note ${i}. ${'words '.repeat(300)}` } });
    const first = JSON.parse((await call('records_query', { collection: 'long', where: { kind: 'k' }, budget: 800 })).text);
    expect(first.fit).toMatchObject({ view: 'full', budget: 800 });
    expect(first.fit.tokens).toBeLessThanOrEqual(800);
    expect(first.more).toBe(true);
    expect(first.entries.length).toBeGreaterThan(0);
    const rest = JSON.parse((await call('records_query', { collection: 'long', where: { kind: 'k' }, after: first.next })).text);
    expect([...first.entries, ...rest.entries].map((e: { id: string }) => e.id)).toEqual(['l0', 'l1', 'l2', 'l3', 'l4', 'l5']);
    const stub = JSON.parse((await call('records_query', { collection: 'long', view: 'stub', limit: 2 })).text);
    expect(stub.entries).toEqual([
      { id: 'l0', createdAt: expect.any(Number), updatedAt: expect.any(Number) },
      { id: 'l1', createdAt: expect.any(Number), updatedAt: expect.any(Number) },
    ]);
  });

  it('deletes and forgets', async () => {
    await call('records_put', { collection: 'questions', id: 'q2', value: { buyer: 'phone:+15555550101', status: 'waiting' } });
    expect(JSON.parse((await call('records_forget', { person: '+15555550101' })).text)).toEqual({ deleted: 1 });
    expect(JSON.parse((await call('records_delete', { collection: 'questions', id: 'q1' })).text)).toEqual({ deleted: true });
    expect(JSON.parse((await call('records_query', { collection: 'questions' })).text)).toEqual({ entries: [] });
  });

  it('a service that cannot be reached is a tool error saying so, not a crash of the server', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
    const lost = new Client({ name: 'custodian-test', version: '1.0.0' });
    await lost.connect(
      new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--url', 'http://127.0.0.1:1', '--agent-key', key], env, stderr: 'ignore' }),
    );
    try {
      const r = await lost.callTool({ name: 'records_collections', arguments: {} });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/^records: the service at http:\/\/127\.0\.0\.1:1 could not be reached \(.+\): start it, or give the right url$/);
      expect((await lost.listTools()).tools).toHaveLength(7);
    } finally {
      await lost.close();
    }
  });

  it('refuses to start without an agent key', async () => {
    const env = { ...process.env, CUSTODIAN_AGENT_KEY: '' };
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [bin, 'mcp', '--url', service.url], { env }, (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      );
    });
    expect(out).toEqual({ code: 1, stdout: '', stderr: expect.stringContaining('not available here: give --agent-key') });
  });
});
