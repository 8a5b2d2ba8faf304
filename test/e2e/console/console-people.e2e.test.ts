import { createHash } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { axeViolations, findChromium, screenshot, seedAuditLog } from './browser.ts';

/**
 * The console as the people it is for use it, in Debian's chromium: a key checked at sign-in,
 * the audit timeline read as sentences and opened to its proof, filters picked from lists,
 * paging through a 10,000-entry log with proofs per page, receipts linked to their entries,
 * the agents' records, the operator's event browser; keyboard use and axe-core's checks.
 */

const executablePath = findChromium();
if (!executablePath) console.log('skipped: console browser tests: no chromium (install the Debian package, or set CUSTODIAN_CHROMIUM)');
const SECRET = `console-people-secret-${Date.now()}`;
const BIG = 10_000;

describe.runIf(executablePath !== null)('the console for people', () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;
  let auditorKey = '';
  let agentKey = '';
  let jobId = '';
  let bobJob = '';
  const pageErrors: string[] = [];
  const figures: Record<string, number> = {};

  const signIn = async (key: string, tenant = 'acme') => {
    await page.goto(`${svc.url}/console/style.css`);
    await page.evaluate('sessionStorage.clear(); localStorage.clear()');
    await page.goto(`${svc.url}/console#/`);
    await page.reload();
    await page.fill('#login-tenant', tenant);
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
    await page.waitForSelector('#audit-summary:not([data-state="checking"])', { timeout: 60_000 });
    return page.$eval('#audit-summary', (e) => ({
      state: e.getAttribute('data-state'),
      verified: Number(e.getAttribute('data-verified')),
      total: Number(e.getAttribute('data-total')),
      ms: Number(e.getAttribute('data-ms')),
    }));
  };
  const expectAccessible = async (what: string) => expect({ what, violations: await axeViolations(page) }).toEqual({ what, violations: [] });
  const agent = (method: string, p: string, body: unknown) =>
    fetch(`${svc.url}${p}`, { method, headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    svc = await startTestService();
    for (const id of ['acme', 'big', 'quiet']) expect((await svc.admin('POST', '/v1/tenants', { id })).status).toBe(201);
    expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe', 'clerk'] })).status).toBe(201);
    const ada = await caller(svc, 'acme', { purpose: 'routine:crm', start: { subject: 'user:ada' } });
    const bob = await caller(svc, 'acme', { input: 'console people', agent: 'clerk', start: { subject: 'user:bob' } });
    jobId = ada.job;
    bobJob = bob.job;
    expect((await ada.rec({ op: 'put', scope: 'tenant', record_key: 'deploy', body: { text: SECRET }, expect: 0 })).status).toBe(200);
    expect((await ada.rec({ op: 'put', scope: 'tenant', record_key: 'deploy', body: { text: SECRET }, expect: 1 })).status).toBe(200);
    expect((await bob.rec({ op: 'get', scope: 'tenant', record_key: 'deploy' })).status).toBe(200);
    expect((await svc.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'kill_agent', agent: 'notes/clerk' }] })).status).toBe(200);
    expect((await svc.admin('POST', '/v1/tenants/acme/holds', { selector: { data_subject: 'user:zed' }, reason: 'litigation' })).status).toBe(201);
    expect((await svc.admin('POST', '/v1/tenants/acme/erasures', { data_subject: 'user:ada' })).status).toBe(200);
    agentKey = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'market' })).body.key;
    expect((await agent('PUT', '/v1/agent/collections', { collections: { questions: { fields: ['status'] }, notes: {} } })).status).toBe(200);
    for (const id of ['q1', 'q2'])
      expect((await agent('PUT', `/v1/agent/records/questions/${id}`, { value: { status: 'open', text: SECRET } })).status).toBe(200);
    expect((await agent('PUT', '/v1/agent/records/notes/n1', { value: { text: SECRET } })).status).toBe(200);
    auditorKey = (await svc.admin('POST', '/v1/tenants/acme/auditor-keys', {})).body.key;
    await svc.runner.catchUp();
    const seeded = Date.now();
    await seedAuditLog(svc, 'big', BIG, Date.UTC(2026, 0, 1));
    figures.seed_ms = Date.now() - seeded;

    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  afterAll(async () => {
    console.log(`figures: ${JSON.stringify(figures)}`);
    await browser?.close();
    await svc?.stop();
  });

  it('refuses a wrong key at sign-in with a clear message, and shows nothing before a key is accepted', async () => {
    await page.goto(`${svc.url}/console/style.css`);
    await page.evaluate('sessionStorage.clear(); localStorage.clear()');
    await page.goto(`${svc.url}/console#/audit`);
    await page.reload();
    expect(await page.isHidden('#nav')).toBe(true);
    expect(await page.$$eval('#nav a', (a) => a.length)).toBe(0);
    await expectAccessible('sign-in');
    await page.fill('#login-tenant', 'acme');
    await page.fill('#login-key', 'au.not-a-real-key');
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#login-error:not([hidden])');
    expect(await page.textContent('#login-error')).toContain('This key was refused');
    expect(await page.isHidden('#nav')).toBe(true);
    expect(await page.isHidden('#page')).toBe(true);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await screenshot(page, 'sign-in-wrong-key');
    await page.fill('#login-tenant', 'nobody');
    await page.fill('#login-key', ADMIN_KEY);
    await page.click('#login button[type=submit]');
    await page.waitForFunction(() => {
      const w = globalThis as any;
      const d = w.document;
      return d.querySelector('#login-error')?.textContent?.includes('No tenant named');
    });
  });

  it('shows an auditor key only the pages it may open', async () => {
    await signIn(auditorKey);
    const shown = await page.$$eval('#nav a', (a) => a.map((x) => x.getAttribute('data-page')));
    expect(shown).toEqual(['collections', 'audit', 'revocations', 'compliance', 'receipt']);
    await page.goto(`${svc.url}/console#/events`);
    await page.waitForSelector('#page [role=alert]');
    expect(await page.textContent('#page [role=alert]')).toContain('needs the admin key');
    await signIn(ADMIN_KEY);
    expect(await page.$$eval('#nav a', (a) => a.map((x) => x.getAttribute('data-page')))).toContain('events');
  });

  it('reads each audit entry as a sentence: who, what, which record version, for which purpose', async () => {
    await signIn(auditorKey);
    const summary = await openAudit();
    expect(summary.state).toBe('verified');
    expect(summary.verified).toBe(summary.total);
    const write = await page.$$eval('li[data-kind="write"] .sentence', (s) => s.map((x) => x.textContent));
    expect(write[1]).toBe(`job ${jobId} of agent scribe wrote tenant/deploy v2 of plugin notes (active) for purpose routine:crm.`);
    const read = await page.$eval('li[data-kind="read"] .sentence', (s) => s.textContent);
    expect(read).toMatch(new RegExp(`^job ${bobJob} of agent clerk read .+ of plugin notes \\(get\\) for purpose [0-9a-f]{8}… [0-9a-f]{64}\\.$`));
    // The purpose's digest shown short, in full on demand.
    const digest = page.locator('li[data-kind="read"] button.digest').first();
    await digest.click();
    expect(await page.locator('li[data-kind="read"] .digest-full').first().textContent()).toMatch(/^(sha256:)?[0-9a-f]{32,}$/);
    expect(await page.textContent('.timeline')).toContain('Hold ');
    expect(await page.textContent('.timeline')).not.toContain(SECRET);
    await screenshot(page, 'audit-timeline-readable');
    await expectAccessible('audit timeline');
  });

  it('opens an entry to its canonical JSON, leaf hash, proof path and checkpoint, by keyboard', async () => {
    const { rows } = await svc.pool.query<{ seq: string; line: string }>(
      `SELECT seq, line FROM custodian_audit_lines WHERE tenant = 'acme' AND kind = 'write' ORDER BY seq LIMIT 1`,
    );
    const seq = Number(rows[0]!.seq);
    const line = rows[0]!.line;
    const leaf = createHash('sha256')
      .update(Buffer.concat([Buffer.of(0), Buffer.from(line)]))
      .digest('base64');
    await page.focus(`#entry-${seq} button.open`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`#entry-${seq}-detail:not([hidden])`);
    const detail = page.locator(`#entry-${seq}-detail`);
    expect(await detail.locator('pre.json').textContent()).toBe(line);
    expect(await detail.textContent()).toContain(leaf);
    expect(await detail.textContent()).toContain('the same as the service’s');
    const size = Number((await svc.pool.query(`SELECT size FROM rm_audit_heads WHERE tenant = 'acme'`)).rows[0].size);
    const proof = (await svc.admin('GET', `/v1/tenants/acme/audit/proof?leaf=${seq}&size=${size}`)).body.proof;
    expect(await detail.locator('.proof-path li').allTextContents()).toEqual(proof);
    const checkpoint = (await svc.admin('GET', '/v1/tenants/acme/audit/checkpoint')).body;
    expect(await detail.locator('.checkpoint-detail').textContent()).toContain(checkpoint.root);
    expect(await page.getAttribute(`#entry-${seq} button.open`, 'aria-expanded')).toBe('true');
    await page.locator(`#entry-${seq}`).scrollIntoViewIfNeeded();
    await screenshot(page, 'audit-proof-open');
    await expectAccessible('an opened proof');
  });

  it('filters by kinds, jobs and records picked from lists and by ISO date-times; no match differs from an empty log', async () => {
    await openAudit();
    const kinds = await page.$$eval('#filter-kind option', (o) => o.map((x) => x.getAttribute('value')));
    expect(kinds).toEqual(expect.arrayContaining(['write', 'read', 'hold_placed', 'erasure', 'revocation_receipt']));
    expect(await page.$$eval('#filter-job option', (o) => o.map((x) => x.getAttribute('value')))).toContain(jobId);
    expect(await page.$$eval('#filter-record option', (o) => o.map((x) => x.getAttribute('value')))).toEqual(
      expect.arrayContaining(['tenant#deploy', 'tenant#deploy#1', 'tenant#deploy#2']),
    );
    await page.selectOption('#filter-kind', 'write');
    await page.selectOption('#filter-record', 'tenant#deploy#2');
    await page.click('#audit-filters button[type=submit]');
    await page.waitForFunction(() => {
      const w = globalThis as any;
      const d = w.document;
      return d.querySelector('#audit-summary')?.getAttribute('data-state') === 'verified' && w.location.hash.includes('record=');
    });
    expect(await page.$$eval('li[data-kind]', (r) => r.map((x) => x.getAttribute('data-kind')))).toEqual(['write']);
    // A window in the past: nothing in it. The picker takes ISO date-times, read as UTC.
    await openAudit('#/audit');
    await page.fill('#filter-since', '2001-01-01T00:00:00');
    await page.fill('#filter-until', '2001-01-02T00:00:00');
    await page.click('#audit-filters button[type=submit]');
    await page.waitForSelector('#audit-empty');
    expect(await page.getAttribute('#audit-empty', 'data-state')).toBe('no-match');
    expect(await page.textContent('#audit-empty')).toContain('No entry matches these filters');
    expect(page.url()).toContain(`since=${encodeURIComponent('2001-01-01T00:00:00.000Z')}`);
    await screenshot(page, 'audit-filter-no-match');
    await expectAccessible('a filter with no match');
    // An empty log says so, not "no match".
    await signIn(ADMIN_KEY, 'quiet');
    await openAudit('#/audit');
    expect(await page.getAttribute('#audit-empty', 'data-state')).toBe('empty-log');
    expect(await page.textContent('#audit-empty')).toContain('The log is empty');
  });

  it('pages through a 10,000-entry log, fetching proofs for the page shown, consistent across pages and visits', async () => {
    await signIn(ADMIN_KEY, 'big');
    // The leaves whose proofs the page asked for, request by request.
    const proofs: number[][] = [];
    const listen = (r: { url(): string }) => {
      const leaves = new URL(r.url()).searchParams.get('leaves');
      if (r.url().includes('/audit/proof?leaf=')) proofs.push([Number(new URL(r.url()).searchParams.get('leaf'))]);
      if (r.url().includes('/console/audit-proofs?') && leaves) proofs.push(leaves.split(',').map(Number));
    };
    const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);
    page.on('request', listen);
    const started = Date.now();
    const first = await openAudit('#/audit');
    figures.first_page_ms_wall = Date.now() - started;
    figures.first_page_ms_app = first.ms;
    expect(first).toMatchObject({ state: 'verified', verified: 50, total: 50 });
    expect(proofs).toEqual([range(0, 50)]);
    expect(await page.textContent('#page-of')).toBe('Page 1 of 200');
    proofs.length = 0;
    await page.click('.pager a[rel=next]');
    await page.waitForFunction(() => {
      const w = globalThis as any;
      const d = w.document;
      return d.querySelector('#page-of')?.textContent === 'Page 2 of 200' && d.querySelector('#audit-summary')?.getAttribute('data-state') === 'verified';
    });
    await page.click('.pager a[rel=next]');
    await page.waitForFunction(() => {
      const w = globalThis as any;
      const d = w.document;
      return d.querySelector('#page-of')?.textContent === 'Page 3 of 200' && d.querySelector('#audit-summary')?.getAttribute('data-state') !== 'checking';
    });
    expect(await page.getAttribute('#audit-summary', 'data-state')).toBe('verified');
    expect(await page.$$eval('li[data-seq]', (r) => [Number(r[0]!.getAttribute('data-seq')), Number(r.at(-1)!.getAttribute('data-seq'))])).toEqual([100, 149]);
    expect(proofs).toEqual([range(50, 100), range(100, 150)]);
    // The checkpoint verified on the first page is the reference the later pages are checked against.
    expect(await page.getAttribute('#consistency', 'data-state')).toBe('consistent');
    await screenshot(page, 'audit-10000-page-3-verified');
    page.off('request', listen);
    // A later visit (a page loaded afresh) is still checked against the checkpoint kept from the pages before.
    await openAudit('#/audit?from=9950');
    expect(await page.getAttribute('#consistency', 'data-state')).toBe('consistent');
    expect(await page.textContent('#page-of')).toBe('Page 200 of 200');
  });

  it('shows receipts where they belong, checked, each linked to its log entry', async () => {
    await signIn(auditorKey);
    await page.goto(`${svc.url}/console#/revocations`);
    await page.waitForSelector('tr[data-epoch] .proof .badge:not([data-verified="pending"])');
    expect(await page.textContent('tr[data-epoch] .signature .badge')).toBe('receipt signature verified');
    await page.goto(`${svc.url}/console#/compliance`);
    await page.waitForSelector('tr[data-kind="erasure"] .proof .badge:not([data-verified="pending"])');
    await page.waitForSelector('.badge[data-verified="pending"]', { state: 'detached' });
    expect(await page.textContent('tr[data-kind="erasure"] .signature .badge')).toBe('receipt signature verified');
    expect(await page.textContent('tr[data-kind="hold_placed"] .proof .badge')).toBe('in the signed log');
    await expectAccessible('holds and erasures');
    await screenshot(page, 'receipts-holds-erasures');
    const seq = Number(await page.getAttribute('tr[data-kind="erasure"]', 'data-seq'));
    await page.click('tr[data-kind="erasure"] a.entry-link');
    await page.waitForSelector(`#entry-${seq}-detail:not([hidden])`, { timeout: 60_000 });
    expect(JSON.parse((await page.textContent(`#entry-${seq}-detail pre.json`))!)).toMatchObject({ seq, kind: 'erasure', subject: 'user:ada' });
  });

  it("lists the agent's records by collection, newest first, ids and times only, refreshing", async () => {
    await signIn(auditorKey);
    await page.goto(`${svc.url}/console#/collections`);
    await page.waitForSelector('[data-collection="questions"] tr[data-id]');
    expect(await page.$$eval('[data-collection="questions"] tr[data-id]', (r) => r.map((x) => x.getAttribute('data-id')))).toEqual(['q2', 'q1']);
    expect(await page.textContent('#collections')).not.toContain(SECRET);
    expect((await agent('PUT', '/v1/agent/records/questions/q3', { value: { status: 'open', text: SECRET } })).status).toBe(200);
    await page.waitForFunction(
      () => {
        const w = globalThis as any;
        const d = w.document;
        return d.querySelector('[data-collection="questions"] tr[data-id]')?.getAttribute('data-id') === 'q3';
      },
      null,
      {
        timeout: 20_000,
      },
    );
    await screenshot(page, 'agent-records');
    await expectAccessible('agent records');
  });

  it('lets an operator browse the event log by stream, sealed data shown sealed', async () => {
    await signIn(ADMIN_KEY);
    await page.goto(`${svc.url}/console#/events`);
    await page.fill('#stream-prefix', 'agent:acme:');
    await page.press('#stream-prefix', 'Enter');
    // The list first shown (every stream) is replaced by the filtered one: wait for that one, not for any row.
    await page.waitForFunction(
      (prefix: string) => {
        const d = (globalThis as any).document;
        const rows: any[] = [...d.querySelectorAll('tr[data-stream]')];
        return rows.length > 0 && rows.every((r) => String(r.getAttribute('data-stream')).startsWith(prefix));
      },
      'agent:acme:',
      { timeout: 20_000 },
    );
    const streams = await page.$$eval('tr[data-stream]', (r) => r.map((x) => x.getAttribute('data-stream')!));
    expect(streams.length).toBeGreaterThan(0);
    expect(streams.every((s) => s.startsWith('agent:acme:'))).toBe(true);
    await page.click(`tr[data-stream^="agent:acme:market"] a`);
    await page.waitForSelector('tr[data-type="AgentRecordPut"]');
    const row = page.locator('tr[data-type="AgentRecordPut"]').first();
    expect(await row.textContent()).toMatch(/sealed: \d+ bytes under key/);
    expect(await page.textContent('#page')).not.toContain(SECRET);
    await screenshot(page, 'event-browser');
    await expectAccessible('event browser');
  });

  it('forgets a kept key that was revoked since, and says so before any page shows', async () => {
    const issued = (await svc.admin('POST', '/v1/tenants/acme/auditor-keys', {})).body;
    await signIn(issued.key);
    expect((await svc.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'api_key_revoked', key: issued.id }] })).status).toBe(200);
    await page.reload();
    await page.waitForSelector('#login-error:not([hidden])');
    expect(await page.textContent('#login-error')).toContain('no longer accepted');
    expect(await page.isHidden('#nav')).toBe(true);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });

  it('raised no script error', () => {
    expect(pageErrors).toEqual([]);
  });
});
