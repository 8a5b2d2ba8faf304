import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { findChromium } from './browser.ts';

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

/** In the page: the paths whose answers the console has read (counted before its code continues). */
const INSTRUMENT = `(() => {
  window.__read = [];
  const f = window.fetch.bind(window);
  window.fetch = async (url, init) => {
    const res = await f(url, init);
    const text = res.text.bind(res);
    res.text = () => text().then((t) => { window.__read.push(new URL(String(url), location.href).pathname); return t; });
    return res;
  };
})();`;

describe.runIf(executablePath !== null)('a key checked again changes no session chosen since', () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;
  let auditorKey = '';

  /** Holds the answers to the session checks sent with `key` until `release`; others pass. */
  const holdChecksOf = async (key: string) => {
    const held: Route[] = [];
    let arrived: () => void = () => {};
    const first = new Promise<void>((resolve) => (arrived = resolve));
    const handler = (route: Route) => {
      if (route.request().headers().authorization !== `Bearer ${key}`) return route.continue();
      held.push(route);
      arrived();
    };
    await page.route(SESSION, handler);
    return {
      first,
      release: async () => {
        for (const r of held.splice(0)) await r.continue();
        await page.unroute(SESSION, handler);
      },
    };
  };
  const signIn = async (key: string) => {
    await page.fill('#login-tenant', 'acme');
    await page.fill('#login-key', key);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#nav:not([hidden])');
  };
  const kept = () => page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('custodian.console') ?? 'null')?.key ?? null);
  /** The held check answered and read, and the route that waited on it ended. */
  const checkAnswered = () =>
    page.waitForFunction(() => (globalThis as any).__read.filter((p: string) => p === '/v1/tenants/acme/console/session').length >= 1);

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
    page = await browser.newPage();
    await page.goto(`${svc.url}/console#/`);
    await signIn(auditorKey);
    await page.addInitScript(INSTRUMENT);
    const check = await holdChecksOf(auditorKey);
    await page.reload();
    await check.first; // the kept auditor key is being checked; the sign-in form shows
    await signIn(ADMIN_KEY);
    expect(await page.textContent('#who')).toBe('acme · admin key');

    await check.release();
    await checkAnswered();
    expect(await kept()).toBe(ADMIN_KEY);
    expect(await page.textContent('#who')).toBe('acme · admin key');
    expect(await page.$$eval('#nav a', (a) => a.map((x) => x.getAttribute('data-page')))).toContain('events');
    await page.waitForSelector('[data-tenant="acme"]'); // the admin's first page stays the page shown
    await page.close();
  });

  it('given the admin key kept and its check held, when the reader opens the event log and types a prefix, then the check answered later leaves that page and its text alone', async () => {
    page = await browser.newPage();
    await page.goto(`${svc.url}/console#/`);
    await signIn(ADMIN_KEY);
    await page.addInitScript(INSTRUMENT);
    const check = await holdChecksOf(ADMIN_KEY);
    await page.reload();
    await check.first;
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
    page = await browser.newPage();
    await page.goto(`${svc.url}/console#/`);
    await signIn(auditorKey);
    await page.addInitScript(INSTRUMENT);
    const check = await holdChecksOf(auditorKey);
    await page.reload();
    await check.first;
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
