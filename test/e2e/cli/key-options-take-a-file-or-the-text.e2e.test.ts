import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

// Each check runs the CLI, a process each: slow on a busy machine, not timed.
vi.setConfig({ testTimeout: 300_000 });

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let svc: TestService;
let dir: string;
let pem: string;
let vkey: string;
const file = (name: string, text: string) => {
  writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

/** Asynchronous: the service answers from this very process. */
const cli = (...args: string[]) =>
  new Promise<{ code: number; out: string; err: string }>((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin/custodian.js'), ...args],
      { encoding: 'utf8', env: { ...process.env, CUSTODIAN_URL: svc.url, CUSTODIAN_ADMIN_KEY: ADMIN_KEY } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });

beforeAll(async () => {
  svc = await startTestService();
  dir = mkdtempSync(path.join(tmpdir(), 'custodian-key-options-'));
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  pem = await (await fetch(`${svc.url}/v1/audit-key`)).text();
  vkey = (await (await fetch(`${svc.url}/v1/audit-key?format=vkey`)).text()).trim();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('custodian receipt verify takes what custodian erase prints', () => {
  it('the answer {erased, deferred, receipt} verifies as its receipt, with the key as a file or as its text', async () => {
    const erased = await cli('erase', '--tenant', 'acme', '--subject', 'user:ada');
    expect(erased.code, erased.err).toBe(0);
    expect(Object.keys(JSON.parse(erased.out))).toEqual(['erased', 'deferred', 'receipt']);
    const answer = file('erase.json', erased.out);
    for (const key of [file('audit.pem', pem), pem]) {
      const r = await cli('receipt', 'verify', answer, '--public-key', key);
      expect(r, r.err).toMatchObject({
        code: 0,
        out: expect.stringMatching(/^receipt verified: the signature matches the audit key, and it is entry \d+ of the audit log /),
      });
    }
  });
});

describe('--vkey and --public-key each take a file or the text alike', () => {
  it('audit verify reads --vkey and --public-key from a file or as given', async () => {
    const downloaded = await cli('audit', 'download', '--tenant', 'acme');
    expect(downloaded.code, downloaded.err).toBe(0);
    const bundle = file('bundle.json', downloaded.out);
    for (const key of [
      ['--vkey', vkey],
      ['--vkey', file('audit.vkey', `${vkey}\n`)],
      ['--public-key', pem],
      ['--public-key', file('audit.pem', pem)],
    ]) {
      const r = await cli('audit', 'verify', bundle, ...key, '--tenant', 'acme');
      expect(r, `${key[0]} ${key[1]!.slice(0, 20)}: ${r.err}`).toMatchObject({ code: 0, out: expect.stringMatching(/^audit log \S+\/acme verified: /) });
    }
  });

  it('a path that is not there, or a file that holds another kind of key, is bad input naming the option (exit 2)', async () => {
    const bundle = file('bundle-2.json', (await cli('audit', 'download', '--tenant', 'acme')).out);
    const missing = await cli('audit', 'verify', bundle, '--vkey', path.join(dir, 'nowhere.vkey'), '--tenant', 'acme');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^custodian: --vkey \S+nowhere\.vkey is neither a log verifier key .* nor a file that can be read \(ENOENT\)/);
    const pemAsVkey = await cli('audit', 'verify', bundle, '--vkey', file('key.pem', pem), '--tenant', 'acme');
    expect(pemAsVkey.code).toBe(2);
    expect(pemAsVkey.err).toMatch(/^custodian: --vkey: the file \S+key\.pem does not hold a log verifier key/);
    const vkeyAsPem = await cli('receipt', 'verify', bundle, '--public-key', vkey);
    expect(vkeyAsPem.code).toBe(2);
    expect(vkeyAsPem.err).toMatch(/^custodian: --public-key \S+ is neither a PEM public key nor a file that can be read/);
  });
});
