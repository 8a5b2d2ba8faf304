import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { findChromium, seedAuditLog } from './browser.ts';
import { holdAnswers, signInAs } from './held-answers.ts';

/**
 * A link to an audit entry (`#/audit?from=…&open=<seq>`) opens the timeline at that entry, and
 * the entry takes the focus once its page's proofs are checked. The filters show before that:
 * a reader already typing into one keeps the focus and the text. The proofs' answer is held
 * until the reader has typed, so the interleaving is the one named, every run.
 */

const executablePath = findChromium();
if (!executablePath) console.log('skipped: console browser tests: no chromium (install the Debian package, or set CUSTODIAN_CHROMIUM)');

const PROOFS = (u: URL) => u.pathname === '/v1/tenants/acme/console/audit-proofs';

describe.runIf(executablePath !== null)('an entry opened by its link takes no focus from a field', () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;

  const signIn = async () => {
    await page.goto(`${svc.url}/console#/`);
    await signInAs(page, ADMIN_KEY);
  };

  beforeAll(async () => {
    svc = await startTestService();
    expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
    await svc.runner.catchUp();
    await seedAuditLog(svc, 'acme', 60, Date.UTC(2026, 0, 1));
    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('given a subject typed while the entry’s page checks its proofs, when they are checked, then the entry opens and the subject keeps the focus and its text', async () => {
    page = await browser.newPage();
    await signIn();
    const proofs = await holdAnswers(page, PROOFS);
    await page.goto(`${svc.url}/console#/audit?from=0&open=5`);
    await proofs.asked; // the filters show; the page's proofs wait
    await page.click('#filter-subject');
    await page.keyboard.type('user:ada');

    await proofs.release();
    await page.waitForSelector('#audit-summary[data-state="verified"]'); // set in the same turn as the entry opens
    expect(await page.isVisible('#entry-5-detail')).toBe(true);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('filter-subject');
    expect(await page.inputValue('#filter-subject')).toBe('user:ada');
    await page.close();
  });

  it('given the page title focused by the sign-in page that ended while the entry’s page checked its proofs, when they are checked, then the entry takes the focus', async () => {
    page = await browser.newPage();
    const tenants = await holdAnswers(page, (u) => u.pathname === '/v1/console/tenants');
    await signIn(); // its first page (tenants) waits for its held answer
    await tenants.asked;
    const proofs = await holdAnswers(page, PROOFS);
    await page.goto(`${svc.url}/console#/audit?from=50&open=55`);
    await proofs.asked;
    await tenants.release(); // the sign-in's page ends: the title shown now takes the focus
    await page.waitForSelector('h2#page-title:focus');

    await proofs.release();
    await page.waitForSelector('#audit-summary[data-state="verified"]');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-controls'))).toBe('entry-55-detail');
    expect(await page.isVisible('#entry-55-detail')).toBe(true);
    await page.close();
  });
});
