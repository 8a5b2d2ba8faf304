import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { findChromium } from './browser.ts';
import { holdAnswers, signInAs } from './held-answers.ts';

/**
 * The console keeps the last signed checkpoint it verified for a tenant, and checks the next one
 * extends it. An audit page left behind while its consistency check was out, answered after the
 * page shown kept a larger tree, keeps nothing: it never puts back the smaller tree it checked.
 * The page left behind's proof is held until the page shown has kept its tree, so the
 * interleaving is the one named, every run.
 */

const executablePath = findChromium();
if (!executablePath) console.log('skipped: console browser tests: no chromium (install the Debian package, or set CUSTODIAN_CHROMIUM)');

describe.runIf(executablePath !== null)('a page left behind never puts back an older checkpoint', () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;

  const size = async () => (await svc.admin('GET', '/v1/tenants/acme/audit/checkpoint')).body.size as number;
  const grow = async () => {
    expect((await svc.admin('POST', '/v1/tenants/acme/holds', { selector: { data_subject: 'user:zed' }, reason: 'more history' })).status).toBe(201);
    await svc.runner.catchUp();
  };
  const keptSize = () => page.evaluate(() => JSON.parse((globalThis as any).localStorage.getItem('custodian.checkpoint.acme') ?? 'null')?.size ?? null);

  beforeAll(async () => {
    svc = await startTestService();
    expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
    await grow();
    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('given an audit page left while its consistency proof was out, when that proof comes after the page shown kept a larger tree, then the larger tree stays kept', async () => {
    page = await browser.newPage();
    await page.goto(`${svc.url}/console#/`);
    await signInAs(page, ADMIN_KEY);
    await page.goto(`${svc.url}/console#/audit`);
    await page.waitForSelector('#audit-summary[data-state="verified"]');
    const n = await size();
    expect(await keptSize()).toBe(n);

    await grow();
    const proofOf = (u: URL) =>
      u.pathname === '/v1/tenants/acme/audit/proof' && u.searchParams.get('from') === String(n) && u.searchParams.get('to') === String(n + 1);
    const proof = await holdAnswers(page, proofOf);
    await page.goto(`${svc.url}/console#/audit?kind=hold_placed`); // checks tree n+1 against tree n; its proof waits
    await proof.asked;
    await grow();
    await page.goto(`${svc.url}/console#/audit`); // the page shown: tree n+2, checked against tree n, kept
    await page.waitForSelector('#audit-summary[data-state="verified"]');
    expect(await keptSize()).toBe(n + 2);

    // The page left behind asks for its page's proofs once its consistency check is done.
    const done = page.waitForRequest((r) => r.url().includes('/console/audit-proofs') && r.url().includes(`size=${n + 1}`));
    await proof.release();
    await done;
    expect(await keptSize()).toBe(n + 2);
    await page.close();
  });
});
