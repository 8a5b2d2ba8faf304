import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * The console (SPEC §14) in a real headless browser — Debian's chromium driven by
 * playwright-core, never a downloaded build: the audit page checks every entry's inclusion
 * proof against the signed checkpoint in the browser and turns each green; an entry altered in
 * the database turns red; the receipt page refuses a receipt with one changed byte.
 * Screenshots go to test-output/console/.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const shots = path.join(root, 'test-output', 'console');
const BODY = `console-body-marker-${Date.now()}`;

const findChromium = (): string | null => {
  const given = process.env.CUSTODIAN_CHROMIUM;
  if (given) return existsSync(given) ? given : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
    return found || null;
  } catch {
    return null;
  }
};

const executablePath = findChromium();
const required = process.env.CUSTODIAN_REQUIRE_BROWSER === '1';
if (!executablePath && !required) console.log('skipped: console browser tests: no chromium (install the Debian package, or set CUSTODIAN_CHROMIUM)');

describe.runIf(executablePath === null && required)('the console browser tests', () => {
  it('need a browser (CUSTODIAN_REQUIRE_BROWSER=1)', () => {
    expect.fail('no chromium found: install the Debian package chromium, or set CUSTODIAN_CHROMIUM');
  });
});

describe.runIf(executablePath !== null)('the console in a real browser', () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;
  let auditorKey = '';
  let erasureReceipt: Record<string, unknown> = {};
  let head = 0;
  const pageErrors: string[] = [];

  const shot = async (name: string) => {
    const file = path.join(shots, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    console.log(`screenshot: ${path.relative(root, file)}`);
  };

  const signIn = async (key: string) => {
    // Cleared from a page of the origin that runs no script: a console page still verifying in
    // the background could write its checkpoint back after the clear.
    await page.goto(`${svc.url}/console/style.css`);
    await page.evaluate('sessionStorage.clear(); localStorage.clear()');
    await page.goto(`${svc.url}/console#/`);
    await page.reload();
    await page.fill('#login-tenant', 'acme');
    await page.fill('#login-key', key);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#nav:not([hidden])');
  };

  const openAudit = async (hash = '#/audit') => {
    // A fresh page at the hash, loaded from a page of the origin that runs no script. The same
    // page sent to a new hash first renders there, and that render, racing a reload, could ask
    // for the page's proofs and keep its checkpoint before the reloaded page read it.
    await page.goto(`${svc.url}/console/style.css`);
    await page.goto(`${svc.url}/console${hash}`);
    await page.waitForSelector('#audit-summary:not([data-state="checking"])', { timeout: 30_000 });
    return page.$eval('#audit-summary', (e) => ({
      state: e.getAttribute('data-state'),
      verified: Number(e.getAttribute('data-verified')),
      total: Number(e.getAttribute('data-total')),
      text: e.textContent ?? '',
    }));
  };

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    svc = await startTestService();
    const settings = { person_memory: [{ agent: 'scribe', purpose: 'routine:crm' }], person_shared_scopes: ['project:crm'] };
    expect((await svc.admin('POST', '/v1/tenants', { id: 'acme', settings })).status).toBe(201);
    expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe', 'clerk'] })).status).toBe(201);
    const ada = await caller(svc, 'acme', { purpose: 'routine:crm', data_subject: 'user:ada', start: { subject: 'user:ada' } });
    const bob = await caller(svc, 'acme', { input: 'console', agent: 'clerk', start: { subject: 'user:bob' } });
    expect((await ada.rec({ op: 'put', scope: 'project:crm', record_key: 'r1', body: { text: BODY }, expect: 0 })).status).toBe(200);
    expect((await bob.rec({ op: 'put', scope: 'tenant', record_key: 'r2', body: { text: `${BODY} bob` }, expect: 0 })).status).toBe(200);
    expect((await bob.rec({ op: 'put', scope: 'tenant', record_key: 'r2', body: { text: `${BODY} bob v2` }, expect: 1 })).status).toBe(200);
    expect((await bob.rec({ op: 'get', scope: 'tenant', record_key: 'r2' })).status).toBe(200);
    expect((await bob.rec({ op: 'list' })).status).toBe(200);
    const revoked = await svc.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'kill_agent', agent: 'notes/clerk' }] });
    expect(revoked.status).toBe(200);
    expect((await svc.admin('POST', '/v1/tenants/acme/holds', { selector: { data_subject: 'user:zed' }, reason: 'litigation' })).status).toBe(201);
    const erased = await svc.admin('POST', '/v1/tenants/acme/erasures', { data_subject: 'user:ada' });
    expect(erased.status).toBe(200);
    erasureReceipt = erased.body.receipt;
    const agent = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'market' })).body.key;
    const asAgent = (method: string, p: string, body: unknown) =>
      fetch(`${svc.url}${p}`, { method, headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await asAgent('PUT', '/v1/agent/collections', { collections: { questions: { fields: ['status'] } } })).status).toBe(200);
    expect((await asAgent('PUT', '/v1/agent/records/questions/q1', { value: { status: 'open' } })).status).toBe(200);
    const issued = await svc.admin('POST', '/v1/tenants/acme/auditor-keys', {});
    expect(issued.status).toBe(201);
    auditorKey = issued.body.key;
    await svc.runner.catchUp();
    head = await svc.lastPosition();

    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('is served with a strict Content-Security-Policy', async () => {
    const res = await fetch(`${svc.url}/console`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    expect((await fetch(`${svc.url}/console/../package.json`)).status).toBe(404);
    expect((await fetch(`${svc.url}/console/nothing.js`)).status).toBe(404);
  });

  it('the audit page verifies every entry of a real log in the browser', async () => {
    await signIn(ADMIN_KEY);
    const summary = await openAudit();
    const size = Number((await svc.pool.query(`SELECT count(*) AS n FROM custodian_audit_lines WHERE tenant = 'acme'`)).rows[0].n);
    expect(summary.total).toBe(size);
    expect(summary.total).toBeGreaterThan(10);
    expect(summary).toMatchObject({ state: 'verified', verified: summary.total });
    expect(await page.$eval('#checkpoint .badge', (e) => e.textContent)).toBe('signature verified');
    const kinds = await page.$$eval('li[data-kind]', (rows) => [...new Set(rows.map((r) => r.getAttribute('data-kind')))]);
    expect(kinds).toEqual(expect.arrayContaining(['job_started', 'write', 'read', 'revocation', 'revocation_receipt', 'erasure']));
    expect(await page.$$eval('li[data-state="failed"]', (rows) => rows.length)).toBe(0);
    await shot('audit-verified');
  });

  it('filters select entries, and those verify too', async () => {
    const summary = await openAudit('#/audit?kind=write');
    expect(summary.state).toBe('verified');
    // The same tree as the visit before: consistent with the checkpoint this tab kept.
    expect(await page.getAttribute('#consistency', 'data-state')).toBe('consistent');
    expect(summary.total).toBe(3);
    expect(await page.$$eval('li[data-kind]', (rows) => rows.every((r) => r.getAttribute('data-kind') === 'write'))).toBe(true);
  });

  it('revocation and erasure receipts are checked in the browser; record pages show metadata, never a body', async () => {
    await page.goto(`${svc.url}/console#/revocations`);
    await page.waitForSelector('tr[data-epoch] .proof .badge:not([data-verified="pending"])');
    expect(await page.$$eval('tr[data-epoch] .signature .badge', (b) => b.map((x) => x.textContent))).toEqual(['receipt signature verified']);
    await shot('revocations');
    await page.goto(`${svc.url}/console#/compliance`);
    await page.waitForSelector('tr[data-kind="erasure"] .proof .badge:not([data-verified="pending"])');
    expect(await page.$eval('tr[data-kind="erasure"] .signature .badge', (b) => b.textContent)).toBe('receipt signature verified');
    await page.goto(`${svc.url}/console#/records?tenant=acme&plugin=notes`);
    await page.waitForSelector('tr[data-record]');
    expect(await page.$$eval('tr[data-record]', (rows) => rows.map((r) => r.getAttribute('data-record')))).toEqual(['tenant#r2#2', 'tenant#r2#1']);
    expect(await page.content()).not.toContain(BODY);
    await shot('records');
    for (const [name, selector] of [
      ['tenants', '[data-tenant="acme"]'],
      ['projections', 'tr[data-projection="audit"]'],
      ['collections', '#collections .card'],
      // Its last section: the page shows each section once its entries are checked.
      ['compliance', 'tr[data-kind="erasure"]'],
    ] as const) {
      await page.goto(`${svc.url}/console#/${name}`);
      await page.waitForSelector(selector);
      await page.waitForSelector('.badge[data-verified="pending"]', { state: 'detached' });
      await shot(name);
    }
    expect(await page.textContent('#page')).not.toContain('Could not load');
  });

  it('an auditor key reads the audit pages, and is refused the admin pages', async () => {
    await signIn(auditorKey);
    const summary = await openAudit();
    expect(summary.state).toBe('verified');
    await page.goto(`${svc.url}/console#/tenants`);
    await page.waitForSelector('[role=alert]');
    expect(await page.textContent('[role=alert]')).toContain('needs the admin key');
  });

  it('an entry altered in the database is shown as failing, and only that one', async () => {
    await signIn(ADMIN_KEY);
    const { rows } = await svc.pool.query<{ seq: string; line: string }>(
      `SELECT seq, line FROM custodian_audit_lines WHERE tenant = 'acme' AND kind = 'read' ORDER BY seq LIMIT 1`,
    );
    const seq = Number(rows[0]!.seq);
    const altered = await svc.pool.query(
      `UPDATE custodian_audit_lines SET line = replace(line, 'user:bob', 'user:eve') WHERE tenant = 'acme' AND seq = $1 AND line LIKE '%user:bob%'`,
      [seq],
    );
    expect(altered.rowCount).toBe(1);
    const summary = await openAudit();
    expect(summary).toMatchObject({ state: 'failed', verified: summary.total - 1 });
    expect(await page.$$eval('li[data-state="failed"]', (r) => r.map((x) => Number(x.getAttribute('data-seq'))))).toEqual([seq]);
    expect(await page.textContent(`li[data-seq="${seq}"] .proof`)).toContain('NOT verified');
    await page.$eval(`li[data-seq="${seq}"]`, (e) => e.scrollIntoView());
    await shot('audit-tampered');
  });

  it('the receipt page verifies a receipt and refuses it with one changed byte', async () => {
    const text = JSON.stringify(erasureReceipt, null, 2);
    const check = async (value: string) => {
      await page.goto(`${svc.url}/console#/receipt`);
      await page.reload(); // the same address again is the same page, showing the answer before
      await page.waitForSelector('#receipt-input');
      await page.fill('#receipt-input', value);
      await page.click('#receipt-form button[type=submit]');
      await page.waitForSelector('#receipt-result:is([data-state="verified"], [data-state="refused"])');
      return page.$eval('#receipt-result', (e) => e.getAttribute('data-state'));
    };
    expect(await check(text)).toBe('verified');
    await shot('receipt-verified');
    // One byte: a digit of a count in the receipt's body.
    const at = text.search(/"erased"\s*:\s*\d/);
    expect(at).toBeGreaterThan(-1);
    const digit = text.indexOf(':', at) + 2;
    const changed = `${text.slice(0, digit)}${text[digit] === '9' ? '8' : String(Number(text[digit]) + 1)}${text.slice(digit + 1)}`;
    expect(changed.length).toBe(text.length);
    expect(await check(changed)).toBe('refused');
    expect(await page.textContent('#receipt-result')).toContain('RECEIPT REFUSED');
    await shot('receipt-refused');
  });

  it('a tab remembers the signed checkpoint it verified: a grown log is consistent with it, a rewritten one is not', async () => {
    await signIn(ADMIN_KEY);
    const first = await openAudit();
    expect(await page.getAttribute('#consistency', 'data-state')).toBe('none');
    expect((await svc.admin('POST', '/v1/tenants/acme/holds', { selector: { data_subject: 'user:yan' }, reason: 'more history' })).status).toBe(201);
    await svc.runner.catchUp();
    head = await svc.lastPosition();
    const grown = await openAudit();
    expect(grown.total).toBeGreaterThan(first.total);
    expect(await page.getAttribute('#consistency', 'data-state')).toBe('consistent');
    // Rewrite history below the remembered tree: the largest stored subtree at the left edge.
    const rewritten = await svc.pool.query(
      `UPDATE rm_audit_nodes SET hash = sha256(hash)
        WHERE tenant = 'acme' AND idx = 0 AND level = (SELECT max(level) FROM rm_audit_nodes WHERE tenant = 'acme' AND idx = 0)`,
    );
    expect(rewritten.rowCount).toBe(1);
    await openAudit();
    expect(await page.getAttribute('#consistency', 'data-state')).toBe('inconsistent');
    expect(await page.textContent('#consistency')).toContain('NOT consistent');
    await shot('audit-rewritten');
  });

  it('raised no script error, and the log did not move: the console only reads', async () => {
    expect(pageErrors).toEqual([]);
    expect(await svc.lastPosition()).toBe(head);
  });
});
