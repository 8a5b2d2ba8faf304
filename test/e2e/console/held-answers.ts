import type { Page, Request, Route } from 'playwright-core';

/**
 * For the console's race tests: the service's answers held and released in the order a race
 * needs, and what the page did, counted in the page itself, so a test waits for an event rather
 * than for time.
 */

/**
 * Holds the answers to the requests `match` picks (and `only` keeps; others pass) until
 * `release`; `asked` resolves once the first is held.
 */
export const holdAnswers = async (page: Page, match: (url: URL) => boolean, only: (request: Request) => boolean = () => true) => {
  const held: Route[] = [];
  let arrived: () => void = () => {};
  const asked = new Promise<void>((resolve) => (arrived = resolve));
  const handler = (route: Route) => {
    if (!only(route.request())) return route.continue();
    held.push(route);
    arrived();
  };
  await page.route(match, handler);
  return {
    asked,
    release: async () => {
      for (const r of held.splice(0)) await r.continue();
      await page.unroute(match, handler);
    },
  };
};

/**
 * A script for `page.addInitScript`: `__read` lists the paths whose answers the console has read
 * (pushed before the console's code continues, so once a path is there, the code awaiting it has
 * run), and `__liveIntervals()` counts the interval timers not cleared.
 */
export const COUNT_READS_AND_TIMERS = `(() => {
  const live = new Set();
  const setI = window.setInterval.bind(window);
  const clearI = window.clearInterval.bind(window);
  window.setInterval = (...a) => { const id = setI(...a); live.add(id); return id; };
  window.clearInterval = (id) => { live.delete(id); clearI(id); };
  window.__liveIntervals = () => live.size;
  window.__read = [];
  const f = window.fetch.bind(window);
  window.fetch = async (url, init) => {
    const res = await f(url, init);
    const text = res.text.bind(res);
    res.text = () => text().then((t) => { window.__read.push(new URL(String(url), location.href).pathname); return t; });
    return res;
  };
})();`;

/** Resolves once the console has read an answer for each of `paths`: a path named twice, two answers. */
export const answersRead = (page: Page, ...paths: string[]) =>
  page.waitForFunction((wanted: string[]) => {
    const read: string[] = (globalThis as any).__read;
    return wanted.every((p) => read.filter((x) => x === p).length >= wanted.filter((x) => x === p).length);
  }, paths);

/** Signs in from the console's sign-in form (shown: no key kept) and waits for the first page. */
export const signInAs = async (page: Page, key: string, tenant = 'acme') => {
  await page.fill('#login-tenant', tenant);
  await page.fill('#login-key', key);
  await page.click('#login button[type=submit]');
  await page.waitForSelector('#nav:not([hidden])');
};
