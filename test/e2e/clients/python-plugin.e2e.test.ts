import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitDocument } from '../../../sdk/fit.ts';
import { CLIENTS_PYTHON, missing, python } from '../../support/python.ts';
import { records } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

// A plugin tool written in Python (an MCP server using the mcp package and the Python client)
// reads its call's _meta, writes and reads records, and answers a fitted result; driven over stdio
// by an MCP client with a call minted on a running service.
const skip = missing('mcp');
let svc: TestService;
let client: Client;

const page = [
  '# Notes',
  '',
  'The first part. It says little.',
  '',
  '## Install',
  '',
  ...Array.from({ length: 60 }, (_, i) => `Install step ${i + 1} of the tool.`),
].join('\n');

beforeAll(async () => {
  if (skip) return;
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save_page'], agents: ['scribe'] });
  client = new Client({ name: 'runtime', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: python(),
      args: [`${CLIENTS_PYTHON}/tests/plugin/notes_server.py`],
      env: { ...process.env, PYTHONPATH: CLIENTS_PYTHON } as Record<string, string>,
      stderr: 'inherit',
    }),
  );
}, 120_000);
afterAll(async () => {
  await client?.close();
  await svc?.stop();
});

const mint = async (job: string) => {
  expect((await svc.admin('POST', '/v1/tenants/acme/jobs', { id: job, agent: 'scribe', plugin: 'notes', subject: 's', input: 'keep pages' })).status).toBe(201);
  const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${job}/calls`, { function: 'save_page' });
  expect(minted.status).toBe(201);
  return minted.body as { call: { id: string }; _meta: Record<string, { ticket: string }> };
};

describe.skipIf(skip !== null)('a Python plugin tool over MCP', () => {
  it('lists its tool with the fitting arguments', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'save_page');
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['path', 'text', 'view', 'budget', 'query']));
  });

  it('writes and reads records from its _meta, is refused a stale write, and answers fitted as the TypeScript library does', async () => {
    const minted = await mint('py-plugin-1');
    const result = (await client.callTool({ name: 'save_page', arguments: { path: 'README.md', text: page, budget: 60 }, _meta: minted._meta })) as {
      structuredContent: Record<string, any>;
      _meta?: Record<string, unknown>;
      isError?: boolean;
    };
    expect(result.isError ?? false).toBe(false);
    const expected = fitDocument(page, { budget: 60, head: 'README.md', name: 'README.md' });
    expect(result.structuredContent.content).toBe(expected.text);
    expect(result.structuredContent.fit).toEqual(expected.fit);
    expect(result._meta?.['oz0/fit']).toEqual(expected.fit);
    expect(result.structuredContent.versions).toEqual([2, 1]);
    expect(result.structuredContent.stale).toEqual({ code: 'stale', status: 409, fields: { current: 2, job_purpose: expect.any(String) } });

    // The records are there for the service's own reader: two versions, the second with `seen`.
    const reader = await mint('py-plugin-reader');
    const history = await records(svc, reader._meta['oz0/records']!.ticket, { op: 'history', scope: 'tenant', record_key: 'pages/README.md' });
    expect(history.body.records.map((r: any) => [r.version, r.body.seen ?? false, r.kind])).toEqual([
      [2, true, 'note'],
      [1, false, 'page'],
    ]);

    // The audit stream names the tool's call: two writes and two reads (get, history), and nothing for the refused write.
    await svc.runner.catchUp();
    const res = await fetch(`${svc.url}/v1/tenants/acme/audit`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const entries = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
    const ofJob = entries.filter((e) => e.job === 'py-plugin-1');
    const rec = (version: number) => ({ scope: 'tenant', key: 'pages/README.md', version });
    expect(ofJob.map((e) => [e.kind, e.op ?? null, e.call ?? null, e.records ?? null])).toEqual([
      ['job_started', null, null, null],
      ['envelope_block', null, null, null],
      ['write', null, null, [rec(1)]],
      ['write', null, null, [rec(2)]],
      ['read', 'get', minted.call.id, [rec(2)]],
      ['read', 'history', minted.call.id, [rec(2), rec(1)]],
    ]);
  });
});
