import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * Red team 2, the console's in-browser verification (SPEC §9, §14). A signed checkpoint names
 * its log (`origin`, `<log name>/<tenant>`); the server-side verifier (domain/audit/verify.ts)
 * refuses two checkpoints of different logs. The console never compares the origin with the
 * tenant it shows, so a relay (or a broken server) that answers tenant A's audit page with
 * tenant B's genuinely signed log is shown green, and a checkpoint of another log silently
 * replaces the one the tab remembered, skipping the consistency check. Nor does it compare the
 * unfiltered page with the signed tree it checks against: entries left out, none at all, or one
 * entry twice still read "ALL VERIFIED", though the checkpoint says how many leaves there are.
 */
const executablePath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ?? null;

describe.runIf(executablePath !== null)('the console checks that a checkpoint is of the tenant it shows', () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;

  const signIn = async () => {
    // Cleared from a page of the origin that runs no script: a console page still verifying in
    // the background could write its checkpoint back after the clear.
    await page.goto(`${svc.url}/console/style.css`);
    await page.evaluate('sessionStorage.clear(); localStorage.clear()');
    await page.goto(`${svc.url}/console#/`);
    await page.reload();
    await page.fill('#login-tenant', 'acme');
    await page.fill('#login-key', ADMIN_KEY);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#nav:not([hidden])');
  };
  const openAudit = async () => {
    // A fresh page at the hash, loaded from a page of the origin that runs no script. The same
    // page sent to a new hash first renders there, and that render, racing a reload, could ask
    // for the page's proofs and keep its checkpoint before the reloaded page read it.
    await page.goto(`${svc.url}/console/style.css`);
    await page.goto(`${svc.url}/console#/audit`);
    await page.waitForSelector('#audit-summary:not([data-state="checking"])', { timeout: 60_000 });
    return page.$eval('#audit-summary', (e) => e.getAttribute('data-state'));
  };
  /** Every audit call for acme is answered with rival's (what a relay or a confused server could do). */
  const swapTenant = async () =>
    page.route(/\/v1\/tenants\/acme\/audit/, async (route) => {
      const url = route.request().url().replace('/v1/tenants/acme/', '/v1/tenants/rival/');
      await route.fulfill({ response: await route.fetch({ url }) });
    });

  beforeAll(async () => {
    svc = await startTestService();
    for (const id of ['acme', 'rival']) {
      expect((await svc.admin('POST', '/v1/tenants', { id })).status).toBe(201);
      expect((await svc.admin('POST', `/v1/tenants/${id}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
      const c = await caller(svc, id);
      expect((await c.rec({ op: 'put', scope: 'tenant', record_key: `${id}-rec`, body: { a: 1 }, expect: 0 })).status).toBe(200);
    }
    // rival's log is longer, so a swapped checkpoint looks like a grown one.
    for (let i = 0; i < 3; i++) expect((await caller(svc, 'rival')).job).toBeTruthy();
    await svc.runner.catchUp();
    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it("does not show another tenant's signed log as acme's verified audit log", async () => {
    await signIn();
    await swapTenant();
    const state = await openAudit();
    await page.unroute(/\/v1\/tenants\/acme\/audit/);
    expect(state).not.toBe('verified');
  });

  it("flags a checkpoint of another log after the tab verified acme's, rather than skipping the check", async () => {
    await signIn();
    expect(await openAudit()).toBe('verified');
    await swapTenant();
    await openAudit();
    const consistency = await page.getAttribute('#consistency', 'data-state');
    const remembered = await page.evaluate("JSON.parse(localStorage.getItem('custodian.checkpoint.acme') ?? 'null')?.origin");
    await page.unroute(/\/v1\/tenants\/acme\/audit/);
    // Either the page says so, or at least it keeps acme's checkpoint as its reference.
    expect({ consistency, remembered: String(remembered).endsWith('/acme') }).toEqual({ consistency: 'inconsistent', remembered: true });
  });

  /** acme's unfiltered audit answer, rewritten by `edit` on its way to the page (a relay, or a server hiding entries). */
  const editAudit = async (edit: (lines: string[]) => string[]) =>
    page.route(/\/v1\/tenants\/acme\/audit(\?|$)/, async (route) => {
      const res = await route.fetch();
      const lines = (await res.text()).split('\n').filter((l) => l !== '');
      await route.fulfill({
        response: res,
        body: edit(lines)
          .map((l) => `${l}\n`)
          .join(''),
      });
    });
  const summaryText = () => page.$eval('#audit-summary', (e) => e.textContent ?? '');

  it('does not call an unfiltered log with an entry left out "ALL VERIFIED"', async () => {
    await signIn();
    // The revocation entry is the one a hiding server would drop.
    expect((await svc.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'kill_agent', agent: 'notes/scribe' }] })).status).toBe(200);
    await svc.runner.catchUp();
    let dropped = 0;
    await editAudit((lines) => {
      const kept = lines.filter((l) => JSON.parse(l).kind !== 'revocation');
      dropped = lines.length - kept.length;
      return kept;
    });
    const state = await openAudit();
    const text = await summaryText();
    await page.unroute(/\/v1\/tenants\/acme\/audit(\?|$)/);
    expect(dropped).toBe(1);
    // The page shows N entries of a signed tree of N+1 and still says every one verified.
    expect({ state, text }).not.toMatchObject({ state: 'verified' });
  });

  it('does not call an empty answer for a non-empty signed log "ALL VERIFIED"', async () => {
    await signIn();
    await editAudit(() => []);
    const state = await openAudit();
    await page.unroute(/\/v1\/tenants\/acme\/audit(\?|$)/);
    expect(state).not.toBe('verified');
  });

  it('does not show one entry twice as two verified entries', async () => {
    await signIn();
    await editAudit((lines) => [lines[0]!, ...lines]);
    const state = await openAudit();
    await page.unroute(/\/v1\/tenants\/acme\/audit(\?|$)/);
    expect(state).not.toBe('verified');
  });
});
