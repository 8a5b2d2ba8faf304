import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { findChromium } from './browser.ts';
import { answersRead, COUNT_READS_AND_TIMERS, holdAnswers, signInAs } from './held-answers.ts';

/**
 * A key kept in the tab is checked again when the console loads, and the sign-in form shows
 * while that check is out. The reader may sign in with another key, sign out, or open a page,
 * before its answer comes: the answer then changes nothing the reader chose — it never puts the
 * old key back, nor shows its pages, nor renders again over the page shown. The check's answer is
 * held until the reader has acted, so the interleaving is the one named, every run.
 */

const executablePath = findChromium();
if (!executablePath) console.log('skipped: console browser tests: no chromium (install the Debian package, or set CUSTODIAN_CHROMIUM)');

const SESSION = (u: URL) => u.pathname === '/v1/tenants/acme/console/session';

describe.runIf(executablePath !== null)('a key checked again changes no session chosen since', () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;
  let auditorKey = '';

  const signIn = (key: string) => signInAs(page, key);
  const kept = () => page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('custodian.console') ?? 'null')?.key ?? null);
  /**
   * The held check answered and read, and the route that waited on it ended; `signedIn`, when
   * the reader signed in meanwhile, whose own check was read first.
   */
  const checkAnswered = (signedIn = false) => answersRead(page, ...(signedIn ? ['/v1/tenants/acme/console/session'] : []), '/v1/tenants/acme/console/session');
  /** A new tab signed in with `key`, reloaded: the kept key is being checked, its answer held; the sign-in form shows. */
  const keptKeyBeingChecked = async (key: string) => {
    page = await browser.newPage();
    await page.goto(`${svc.url}/console#/`);
    await signIn(key);
    await page.addInitScript(COUNT_READS_AND_TIMERS);
    const check = await holdAnswers(page, SESSION, (r) => r.headers().authorization === `Bearer ${key}`);
    await page.reload();
    await check.asked;
    return check;
  };

  beforeAll(async () => {
    svc = await startTestService();
    expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
    auditorKey = (await svc.admin('POST', '/v1/tenants/acme/auditor-keys', {})).body.key;
    await svc.runner.catchUp();
    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('given the auditor key kept and its check held, when the reader signs in with the admin key, then the check answered later keeps the admin session', async () => {
    const check = await keptKeyBeingChecked(auditorKey);
    await signIn(ADMIN_KEY);
    expect(await page.textContent('#who')).toBe('acme · admin key');

    await check.release();
    await checkAnswered(true);
    expect(await kept()).toBe(ADMIN_KEY);
    expect(await page.textContent('#who')).toBe('acme · admin key');
    expect(await page.$$eval('#nav a', (a) => a.map((x) => x.getAttribute('data-page')))).toContain('events');
    await page.waitForSelector('[data-tenant="acme"]'); // the admin's first page stays the page shown
    await page.close();
  });

  it('given the admin key kept and its check held, when the reader opens the event log and types a prefix, then the check answered later leaves that page and its text alone', async () => {
    const check = await keptKeyBeingChecked(ADMIN_KEY);
    await page.goto(`${svc.url}/console#/events`); // shown at once, with the key kept
    await page.waitForSelector('tr[data-stream]');
    await page.click('#stream-prefix');
    await page.keyboard.type('tenant:');

    await check.release();
    await checkAnswered();
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('stream-prefix');
    expect(await page.inputValue('#stream-prefix')).toBe('tenant:');
    expect(await page.$$eval('#page-title', (t) => t.length)).toBe(1);
    await page.close();
  });

  it('given the auditor key kept and its check held, when the reader signs out, then the check answered later brings no key back', async () => {
    const check = await keptKeyBeingChecked(auditorKey);
    // Another page asked for meanwhile shows at once, with the key kept, and so does Sign out.
    await page.goto(`${svc.url}/console#/receipt`);
    await page.click('#signout');
    await page.waitForSelector('#login:not([hidden])');
    expect(await kept()).toBe(null);

    await check.release();
    await checkAnswered();
    expect(await kept()).toBe(null);
    expect(await page.isVisible('#login')).toBe(true);
    expect(await page.isHidden('#nav')).toBe(true);
    expect(await page.textContent('#who')).toBe('');
    await page.close();
  });
});
