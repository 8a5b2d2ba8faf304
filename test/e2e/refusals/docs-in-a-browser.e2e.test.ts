import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * GET /docs in a real headless browser (Debian's chromium, driven by playwright-core): the
 * reference renders from /openapi.json with every asset from this server, shows the records
 * operation and its put fields. GET / names where to go. Screenshots in test-output/docs/.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const shots = path.join(root, 'test-output', 'docs');

const findChromium = (): string | null => {
  const given = process.env.CUSTODIAN_CHROMIUM;
  if (given) return existsSync(given) ? given : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
};
const executablePath = findChromium();
const required = process.env.CUSTODIAN_REQUIRE_BROWSER === '1';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
}, 120_000);
afterAll(async () => svc?.stop());

describe('GET /', () => {
  it('names /docs, /console, /openapi.json and /healthz: HTML for a browser, JSON otherwise, without a key', async () => {
    const json = await fetch(`${svc.url}/`);
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    const paths = ((await json.json()) as { links: { path: string }[] }).links.map((l) => l.path);
    expect(paths).toEqual(['/docs', '/console', '/openapi.json', '/healthz']);
    const html = await fetch(`${svc.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    const text = await html.text();
    for (const p of paths) expect(text).toContain(`href="${p}"`);
  });

  it('serves /docs without a key', async () => {
    const res = await fetch(`${svc.url}/docs`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger');
  });
});

describe.runIf(executablePath === null && required)('the docs browser test', () => {
  it('needs a browser (CUSTODIAN_REQUIRE_BROWSER=1)', () => {
    expect.fail('no chromium found: install the Debian package chromium, or set CUSTODIAN_CHROMIUM');
  });
});

describe.runIf(executablePath !== null)('/docs in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => browser?.close());

  it('shows POST /v1/records and its put fields, every asset from this server', { timeout: 120_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(svc.url) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    await page.goto(`${svc.url}/docs`);
    const op = page.locator('.opblock-post', { has: page.locator('[data-path="/v1/records"]') }).first();
    await op.waitFor({ timeout: 60_000 });
    await op.locator('.opblock-summary').first().click();
    const body = op.locator('.opblock-body');
    await body.waitFor();
    await op.locator('.opblock-section-request-body, .body-param__example, .microlight').first().waitFor({ timeout: 30_000 });
    const text = await body.innerText();
    for (const field of ['"op"', '"scope"', '"record_key"', '"body"', '"expect"', '"dedupe"', '"ends_at"']) expect(text, field).toContain(field);
    await page.screenshot({ path: path.join(shots, 'records-operation.png'), fullPage: false });
    await op.screenshot({ path: path.join(shots, 'records-put-fields.png') });
    console.log(`screenshots: ${path.relative(root, shots)}/records-operation.png, records-put-fields.png`);
    expect(foreign).toEqual([]);
    await page.close();
  });
});
