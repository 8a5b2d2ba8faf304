import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENTS_GO, CLIENTS_PYTHON, missing, python } from '../../support/python.ts';

// The Python and Go clients' own suites run from the project's test command: each passes every
// shared fit vector (test/fixtures/fit-vectors) byte for byte. Under CI a missing python3 or go fails.
const noPython = missing('mcp');
const noGo = missing('go');

const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  new Promise<{ status: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (e) => resolve({ status: -1, output: String(e) }));
    child.on('close', (status) => resolve({ status, output }));
  });

const temp: string[] = [];
afterAll(() => temp.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the client suites', () => {
  it.skipIf(noPython !== null)(
    'pytest: the Python client passes every vector',
    async () => {
      const r = await run(python(), ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], CLIENTS_PYTHON, { PYTHONPATH: CLIENTS_PYTHON });
      expect(r.output).toMatch(/\d{3,} passed/);
      expect(r.status, r.output).toBe(0);
    },
    300_000,
  );

  it.skipIf(noGo !== null)(
    'go test: the Go module passes every vector',
    async () => {
      const r = await run('go', ['test', '-count=1', './...'], CLIENTS_GO);
      expect(r.output).toMatch(/ok\s+custodian\/fit/);
      expect(r.status, r.output).toBe(0);
    },
    300_000,
  );

  it.skipIf(noPython !== null)(
    "the package installed into a fresh virtual environment, with nothing else, runs the seed's example as written",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'custodian-venv-'));
      temp.push(dir);
      const venv = join(dir, 'venv');
      expect((await run('python3', ['-m', 'venv', venv], dir)).status).toBe(0);
      const pip = join(venv, 'bin', 'pip');
      // From a copy of its source: setuptools builds in the source tree (build/, *.egg-info), and the
      // docs' install command, tested meanwhile, builds in clients/python: two builds there at once
      // collide (`File exists: build/bdist…`).
      const source = join(dir, 'source');
      cpSync(CLIENTS_PYTHON, source, { recursive: true, filter: (from) => !/[/\\](build|[^/\\]*\.egg-info|__pycache__)$/.test(from) });
      // pip builds it in an environment of its own (setuptools from the package index); the venv gets only the package.
      const installed = await run(pip, ['install', '-q', '--disable-pip-version-check', source], dir);
      expect(installed.status, installed.output).toBe(0);
      const listed = await run(pip, ['list', '--format=freeze', '--disable-pip-version-check'], dir);
      const others = listed.output
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('==')[0]!.toLowerCase())
        .filter((n) => !['pip', 'setuptools', 'wheel', 'custodian-client', 'custodian_client'].includes(n));
      expect(others).toEqual([]);
      // The seed's example as it is written (a plugin's src/acme_docs/server.py), run outside the
      // source tree. It takes `server`, `READ` and `read_page` from the rest of its plugin, and its
      // result types from the mcp package, which this environment must not have: the lines
      // before it give those (the result types as plain records of what they were given).
      const shim = join(dir, 'plugin-rest');
      mkdirSync(join(shim, 'mcp'), { recursive: true });
      writeFileSync(join(shim, 'mcp', '__init__.py'), '');
      writeFileSync(
        join(shim, 'mcp', 'types.py'),
        [
          'class TextContent(dict):',
          '    def __init__(self, **fields): super().__init__(fields)',
          '',
          'class CallToolResult(dict):',
          '    def __init__(self, **fields): super().__init__(fields)',
          '',
        ].join('\n'),
      );
      const example = join(dir, 'example.py');
      writeFileSync(
        example,
        [
          'READ = {"readOnlyHint": True}',
          'class Server:',
          '    def tool(self, annotations=None):',
          '        return lambda f: f',
          'server = Server()',
          'PAGE = "# Guide\\n\\nRead this first.\\n\\n## Install\\n\\n" + "Run the step. " * 400',
          'def read_page(path):',
          '    return PAGE',
          '',
          // The seed's example, verbatim.
          'import json',
          'from typing import Literal',
          '',
          'from mcp.types import CallToolResult, TextContent',
          'from oz0 import fit',
          '',
          'View = Literal["stub", "summary", "section", "full"]',
          '',
          '',
          '@server.tool(annotations=READ)',
          'def get_page(path: str, view: View | None = None, budget: int | None = None, query: str | None = None):',
          '    text = read_page(path)',
          '    if not fit.wanted(view, budget, query):',
          '        return {"content": text}',
          '    f = fit.fit_document(text, view=view or "", budget=budget or 0, query=query or "", head=path, name=path)',
          '    answer = {"content": f.text, "fit": f.meta()}',
          '    return CallToolResult(',
          '        content=[TextContent(type="text", text=json.dumps(answer))],',
          '        structured_content=answer,',
          '        _meta={fit.META_KEY: f.meta()},',
          '    )',
          '',
          // What it answered.
          'from custodian.fit import weigh',
          'print(json.dumps({"unfitted": get_page("guide.md"), "fitted": get_page("guide.md", budget=200), "section": get_page("guide.md", query="Install", budget=5000), "weigh": weigh(PAGE), "file": fit.__file__}))',
        ].join('\n'),
      );
      const ran = await run(join(venv, 'bin', 'python'), [example], dir, { PYTHONPATH: shim });
      expect(ran.status, ran.output).toBe(0);
      const out = JSON.parse(ran.output) as Record<string, any>;
      expect(out.file).toContain(venv);
      expect(out.unfitted).toEqual({ content: expect.stringContaining('## Install') });
      expect(JSON.parse(out.fitted.content[0].text)).toEqual(out.fitted.structured_content);
      expect(out.fitted.structured_content.fit).toMatchObject({ view: 'summary', budget: 200, size: out.weigh + 3 });
      expect(out.fitted._meta['oz0/fit']).toEqual(out.fitted.structured_content.fit);
      expect(out.section.structured_content.fit.view).toBe('section');
    },
    300_000,
  );
});
