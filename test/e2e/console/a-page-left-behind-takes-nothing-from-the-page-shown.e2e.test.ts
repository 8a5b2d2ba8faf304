import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { findChromium } from './browser.ts';
import { answersRead, COUNT_READS_AND_TIMERS, holdAnswers, signInAs } from './held-answers.ts';

/**
 * Each page of the console renders after its reads answer, so a render can finish after the
 * reader has moved on, or while the reader is typing into the page shown. Such a render takes
 * nothing from the page shown: not the focus (which would swallow the typed text or the Enter
 * that submits it) and not a refresh timer (which would outlive its page, never cleared).
 * The service's answers are held and released in the order each race needs, so the interleaving
 * is the one named, every run.
 */

const executablePath = findChromium();
if (!executablePath) console.log('skipped: console browser tests: no chromium (install the Debian package, or set CUSTODIAN_CHROMIUM)');

describe.runIf(executablePath !== null)('a page left behind takes nothing from the page shown', () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;

  const signInAsAdmin = async () => {
    await page.goto(`${svc.url}/console#/`);
    await signInAs(page, ADMIN_KEY);
  };
  const readCount = (path: string) => page.evaluate((p) => (globalThis as any).__read.filter((x: string) => x === p).length, path);

  beforeAll(async () => {
    svc = await startTestService();
    for (const id of ['acme', 'other']) expect((await svc.admin('POST', '/v1/tenants', { id })).status).toBe(201);
    expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
    await svc.runner.catchUp();
    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('given a stream prefix typed while the event page loads, when its list and the sign-in page left behind finish, then the typed prefix keeps the focus and Enter lists only its streams', async () => {
    page = await browser.newPage();
    await page.addInitScript(COUNT_READS_AND_TIMERS);
    const tenants = await holdAnswers(page, (u) => u.pathname === '/v1/console/tenants');
    const streams = await holdAnswers(page, (u) => u.pathname === '/v1/events/streams');
    await signInAsAdmin(); // its first page (tenants) waits for its held answer
    await tenants.asked;
    await page.goto(`${svc.url}/console#/events`);
    await streams.asked; // the event page's first list waits too
    await page.click('#stream-prefix');
    await page.keyboard.type('tenant:');

    await tenants.release();
    await answersRead(page, '/v1/tenants/acme', '/v1/tenants/other'); // the tenants page reads each in turn: then it has ended
    await streams.release();
    await page.waitForSelector('tr[data-stream]'); // the list of every stream, rendered: its route has finished
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('stream-prefix');
    expect(await page.inputValue('#stream-prefix')).toBe('tenant:');

    await page.keyboard.press('Enter');
    await page.waitForSelector('h2#page-title:focus');
    const shown = await page.$$eval('tr[data-stream]', (r) => r.map((x) => x.getAttribute('data-stream')!));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.every((s) => s.startsWith('tenant:'))).toBe(true);
    await page.close();
  });

  it('given the projections page left before its first answer, when that answer comes, then no refresh timer runs on the page shown; the projections page shown again has one', async () => {
    page = await browser.newPage();
    await page.addInitScript(COUNT_READS_AND_TIMERS);
    await signInAsAdmin();
    const projections = await holdAnswers(page, (u) => u.pathname === '/v1/console/projections');
    await page.goto(`${svc.url}/console#/projections`);
    await projections.asked;
    await page.goto(`${svc.url}/console#/events`);
    await page.waitForSelector('tr[data-stream]');

    await projections.release();
    await answersRead(page, '/v1/console/projections');
    expect(await page.evaluate(() => (globalThis as any).__liveIntervals())).toBe(0);

    await page.goto(`${svc.url}/console#/projections`);
    await page.waitForSelector('tr[data-projection]');
    expect(await readCount('/v1/console/projections')).toBe(2);
    expect(await page.evaluate(() => (globalThis as any).__liveIntervals())).toBe(1);
    await page.close();
  });
});
