import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitDocument, weigh } from '../../../sdk/fit.ts';
import { CLIENTS_GO, CLIENTS_PYTHON, missing, python, ROOT } from '../../support/python.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { blocksOf, type Block } from '../../support/snippets.ts';

// The samples of the client pages (docs/clients/python.md and go.md) run as written against a
// running service, so a sample that stops working fails the suite. A sample uses names the page
// says it is given (a call's `meta`, a page's `text`, an agent `key` and the service's `url`):
// this test gives them, runs the sample, and checks what it did.
const noPython = missing('mcp');
const noGo = missing('go');
const PYTHON_PAGE = 'docs/clients/python.md';
const GO_PAGE = 'docs/clients/go.md';
const README = `${ROOT}README.md`;

const python_ = blocksOf(PYTHON_PAGE);
const go_ = blocksOf(GO_PAGE);
const where = (b: Block) => `${b.file}:${b.line}`;
const serverSample = python_.find((b) => b.tag === 'python' && b.code.includes('server.run()'));
const recordsSamples = python_.filter((b) => b.tag === 'python' && b !== serverSample);
const goFit = go_.find((b) => b.code.includes('"custodian/fit"'));
const goRecords = go_.find((b) => b.code.includes('"custodian/records"'));

const run = (command: string, args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => resolve({ status: -1, stdout, stderr: String(e) }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });

const temp: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temp.push(dir);
  return dir;
};

let svc: TestService;
beforeAll(async () => {
  if (noPython && noGo) return;
  svc = await startTestService();
  for (const tenant of ['acme', 'globex']) {
    await svc.admin('POST', '/v1/tenants', { id: tenant });
    await svc.admin('POST', `/v1/tenants/${tenant}/plugins`, { name: 'docs', functions: ['keep_page'], agents: ['scribe'] });
  }
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  temp.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const mint = async (tenant: string, job: string) => {
  expect((await svc.admin('POST', `/v1/tenants/${tenant}/jobs`, { id: job, agent: 'scribe', plugin: 'docs', subject: 's', input: 'the docs' })).status).toBe(
    201,
  );
  const minted = await svc.admin('POST', `/v1/tenants/${tenant}/jobs/${job}/calls`, { function: 'keep_page' });
  expect(minted.status).toBe(201);
  return minted.body._meta as Record<string, unknown>;
};

describe('the client pages', () => {
  it('carry only blocks this test runs: sh and python on the Python page, go on the Go page', () => {
    expect(python_.filter((b) => !['sh', 'python'].includes(b.tag)).map(where)).toEqual([]);
    expect(go_.filter((b) => b.tag !== 'go').map(where)).toEqual([]);
    expect(serverSample).toBeDefined();
    expect(recordsSamples.length).toBeGreaterThanOrEqual(3);
    expect(go_.map((b) => b === goFit || b === goRecords)).toEqual(go_.map(() => true));
  });
});

describe.skipIf(noPython !== null)('docs/clients/python.md', () => {
  it('the install command installs the package into a fresh virtual environment', async () => {
    const venv = join(tempDir('custodian-docs-venv-'), 'venv');
    expect((await run('python3', ['-m', 'venv', venv])).status).toBe(0);
    for (const b of python_.filter((b) => b.tag === 'sh')) {
      const ran = await run('bash', ['-euo', 'pipefail', '-c', b.code], {
        env: { PATH: `${venv}/bin:${process.env.PATH}`, VIRTUAL_ENV: venv, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
      });
      expect(ran.status, `${where(b)}\n${ran.stderr}`).toBe(0);
    }
    const imported = await run(join(venv, 'bin', 'python'), ['-c', 'import custodian.fit, custodian.records, oz0.fit; print(oz0.fit.weigh("hello"))'], {
      cwd: tmpdir(),
    });
    expect(imported.stdout.trim()).toBe(String(weigh('hello')));
  }, 300_000);

  it('the plugin server runs as written and answers a page fitted as the service fits it', async () => {
    const file = join(tempDir('custodian-docs-server-'), 'server.py');
    writeFileSync(file, serverSample!.code);
    const client = new Client({ name: 'runtime', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: python(),
        args: [file],
        env: { ...process.env, PYTHONPATH: CLIENTS_PYTHON } as Record<string, string>,
        stderr: 'inherit',
      }),
    );
    try {
      const fitted = (await client.callTool({ name: 'get_page', arguments: { path: README, budget: 200 } })) as {
        structuredContent: any;
        _meta?: any;
        isError?: boolean;
      };
      expect(fitted.isError ?? false).toBe(false);
      const expected = fitDocument(readFileSync(README, 'utf8'), { budget: 200, head: README, name: README });
      expect(fitted.structuredContent).toEqual({ content: expected.text, fit: expected.fit });
      expect(fitted._meta?.['oz0/fit']).toEqual(expected.fit);
      const whole = (await client.callTool({ name: 'get_page', arguments: { path: README } })) as { structuredContent: any };
      expect(whole.structuredContent).toEqual({ content: readFileSync(README, 'utf8') });
    } finally {
      await client.close();
    }
  });

  it('the records and agent records samples run in order against the service and do what the page says', async () => {
    const meta = await mint('acme', 'docs-python');
    const { key } = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'concierge' })).body as { key: string };
    const given = [
      'import json, os',
      'given = json.loads(os.environ["CUSTODIAN_DOCS_GIVEN"])',
      'meta, url, key, text = given["meta"], given["url"], given["key"], given["text"]',
    ];
    // What each sample did, read back from its own variables right after it ran.
    const checks = [
      [
        'assert v["version"] == 1, v',
        'assert page["body"] == {"text": text} and page["kind"] == "page", page',
        'assert [r["version"] for r in versions] == [1], versions',
        'assert [r["key"] for r in page_of_list["records"]] == ["pages/readme"] and [r["key"] for r in everything] == ["pages/readme"]',
      ],
      ['assert current == 1, current'],
      [
        'assert [r["value"]["asker"] for r in page] == ["ada"] and more == [] and all_open == page, (page, more, all_open)',
        'assert agent.get("questions", "q1") is None',
      ],
    ];
    expect(recordsSamples.length).toBe(checks.length);
    const script = [...given, ...recordsSamples.flatMap((b, i) => [`# ${where(b)}`, b.code, ...checks[i]!]), 'print("ran")'].join('\n');
    const file = join(tempDir('custodian-docs-records-'), 'samples.py');
    writeFileSync(file, script);
    const ran = await run(python(), [file], {
      env: { PYTHONPATH: CLIENTS_PYTHON, CUSTODIAN_DOCS_GIVEN: JSON.stringify({ meta, url: svc.url, key, text: '# Read me\n\nThe first page.' }) },
    });
    expect({ status: ran.status, stderr: ran.stderr }).toEqual({ status: 0, stderr: '' });
    expect(ran.stdout.trim()).toBe('ran');
  });
});

describe.skipIf(noGo !== null)('docs/clients/go.md', () => {
  /** A module of the sample's own that uses clients/go as the page says: a replace and a require. */
  const module = (code: string) => {
    const dir = tempDir('custodian-docs-go-');
    const goVersion = /^go (\S+)$/m.exec(readFileSync(`${CLIENTS_GO}/go.mod`, 'utf8'))![1];
    writeFileSync(join(dir, 'go.mod'), `module sample\n\ngo ${goVersion}\n\nrequire custodian v0.0.0\n\nreplace custodian => ${CLIENTS_GO}\n`);
    writeFileSync(join(dir, 'main.go'), code);
    return dir;
  };

  it('the fit program runs as written and answers the file fitted as the service fits it', async () => {
    const ran = await run('go', ['run', '.', README], { cwd: module(goFit!.code) });
    expect(ran.status, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout) as Record<string, any>;
    const text = readFileSync(README, 'utf8');
    const expected = fitDocument(text, { budget: 500, head: README, name: README });
    expect(out).toEqual({ tokens: weigh(text), answer: { content: expected.text, fit: expected.fit }, _meta: { 'oz0/fit': expected.fit } });
  }, 300_000);

  it('the records program runs as written against the service, from a minted call’s _meta on its input', async () => {
    const meta = await mint('globex', 'docs-go');
    const ran = await run('go', ['run', '.'], { cwd: module(goRecords!.code), input: JSON.stringify(meta) });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stderr.trim()).toBe('stale; the current version is 1');
    const out = JSON.parse(ran.stdout) as Record<string, any>;
    expect(out.put.version).toBe(1);
    expect(out.get.record).toMatchObject({ version: 1, kind: 'page', body: { text: '# Read me\n\nThe first page.' } });
    expect(out.history.records.map((r: any) => r.version)).toEqual([1]);
    expect(out.list.records.map((r: any) => r.key)).toEqual(['pages/readme']);
    expect(out.fitted.fit).toBeDefined();
    expect(out.part.fit).toBeDefined();
    expect(out.file).toBe('bytes for the next tool');
  }, 300_000);
});
