/* global document, window, setInterval, clearInterval, URLSearchParams */
// The console (SPEC §14): read-only pages over the JSON API. It sends GET requests only
// (http.js), with the key it was given, and only after the service said what that key is;
// every proof and signature is checked in the browser (verify.js), against the audit public
// key, never taken on the service's word. Data goes into the page only as text.
import { agentPages } from './agents.js';
import { el, readerIsIn } from './dom.js';
import { HttpError, enc, forgetSession, get, saveSession, session } from './http.js';
import { operatorPages } from './operator.js';
import { receiptPages } from './receipts.js';
import { timelinePage } from './timeline.js';

const $ = (id) => document.getElementById(id);

/** Every page, in navigation order; the service says which of them a key opens. */
const NAV = [
  ['tenants', 'Tenants and plugins'],
  ['records', 'Records'],
  ['collections', 'Agent records'],
  ['audit', 'Audit timeline'],
  ['revocations', 'Revocations'],
  ['compliance', 'Holds and erasures'],
  ['receipt', 'Check a receipt'],
  ['projections', 'Projections'],
  ['events', 'Event log'],
];

const failure = (error) =>
  el(
    'p',
    { class: 'error', role: 'alert' },
    error instanceof HttpError && error.status === 401
      ? 'The service refused this key for this page: it needs the admin key. Sign in again with the admin key.'
      : `Could not load: ${error.message}`,
  );

let refresh = null;
// A key kept from before (a reload, a new visit in this tab) is checked again once: a key
// revoked since is forgotten, and the sign-in says why, before any page shows.
// While the check is out the sign-in form shows, and the reader may sign out or in with another
// key: its answer then speaks of a key no longer kept, and changes nothing.
let rechecked = false;
const recheck = async (s) => {
  rechecked = true;
  const stillKept = () => session()?.key === s.key && session()?.tenant === s.tenant;
  try {
    const answer = await get(`/v1/tenants/${enc(s.tenant)}/console/session`, 'json', s.key);
    if (stillKept()) saveSession({ ...s, role: answer.role, pages: answer.pages });
    return true;
  } catch (error) {
    if (!(error instanceof HttpError) || (error.status !== 401 && error.status !== 404) || !stillKept()) return true;
    forgetSession();
    $('login-error').textContent = `The key kept in this tab is no longer accepted (${refusedText(error, s.tenant)}) Sign in again.`;
    $('login-error').hidden = false;
    return false;
  }
};
// A page refreshes only while it is the one shown: a slow first load that finishes after the
// reader moved on starts no timer (it would outlive its page, never cleared).
const refreshEvery = (load, shown) => {
  if (shown.isConnected) refresh = setInterval(load, 5_000);
};
// Each render gets a container of its own: a slow render of a page left behind appends to a
// detached node, never to the page shown now.
const page = (title, ...children) => {
  const p = el('div', {}, el('h2', { tabindex: -1, id: 'page-title' }, title), ...children);
  $('page').replaceChildren(p);
  return p;
};

const pages = {
  ...operatorPages(page, failure, refreshEvery),
  ...agentPages(page, failure, refreshEvery),
  ...receiptPages(page, failure),
  audit: (s, q) => timelinePage(s, q, page, failure),
};

const buildNav = (s) => {
  $('nav').replaceChildren(
    el(
      'ul',
      {},
      NAV.filter(([name]) => s.pages.includes(name)).map(([name, label]) => el('li', {}, el('a', { href: `#/${name}`, 'data-page': name }, label))),
    ),
  );
};

// ---- routing and the key --------------------------------------------------------------------

// A page's title takes focus once the page is ready, so a screen reader starts there; but never
// from a reader working in the page shown, who may be typing while a render (this one, or a
// slower one left behind) finishes.
const focusTitle = () => {
  if (!readerIsIn($('page'))) $('page-title')?.focus({ preventScroll: true });
};

// Each route is numbered: one that waited on the key's check while a later one started (a
// sign-in, a sign-out, another page) leaves the page to the later one.
let routes = 0;
const route = async () => {
  const mine = ++routes;
  if (refresh !== null) clearInterval(refresh);
  refresh = null;
  const kept = session();
  if (kept && !rechecked && !(await recheck(kept))) return route();
  if (mine !== routes) return;
  const s = session();
  $('login').hidden = s !== null;
  $('page').hidden = s === null;
  $('nav').hidden = s === null;
  $('signout').hidden = s === null;
  $('who').textContent = s ? `${s.tenant} · ${s.role === 'admin' ? 'admin key' : 'auditor key'}` : '';
  if (!s) {
    $('nav').replaceChildren();
    $('page').replaceChildren();
    return;
  }
  buildNav(s);
  const [path, query] = (window.location.hash.replace(/^#\/?/, '') || (s.role === 'admin' ? 'tenants' : 'audit')).split('?');
  for (const a of document.querySelectorAll('nav a')) {
    const current = a.dataset.page === path;
    a.classList.toggle('current', current);
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (!Object.hasOwn(pages, path)) return page('Not a page', el('p', {}, `No page ${path}.`));
  if (!s.pages.includes(path))
    return page(
      'Not open to this key',
      el('p', { role: 'alert', class: 'error' }, 'This page needs the admin key; an auditor key opens the pages listed above.'),
    );
  await pages[path](s, new URLSearchParams(query ?? ''));
};

const refusedText = (error, tenant) => {
  if (error instanceof HttpError && error.status === 401)
    return `This key was refused: it is neither the admin key nor a live auditor key of tenant “${tenant}”. Check the key (an auditor key starts with “au.”) and the tenant.`;
  if (error instanceof HttpError && error.status === 404) return `No tenant named “${tenant}” on this service: check the tenant id.`;
  if (error instanceof HttpError && error.status === 400) return `“${tenant}” is not a tenant id: 1 to 63 of a–z, 0–9, _ and -.`;
  return `Could not reach the service: ${error.message}`;
};

$('login').addEventListener('submit', async (e) => {
  e.preventDefault();
  const tenant = $('login-tenant').value.trim();
  const key = $('login-key').value.trim();
  const message = $('login-error');
  message.hidden = true;
  $('login').setAttribute('aria-busy', 'true');
  try {
    // The key is checked before anything is shown or kept: only a key the service accepts is stored.
    const answer = await get(`/v1/tenants/${enc(tenant)}/console/session`, 'json', key);
    saveSession({ tenant, key, role: answer.role, pages: answer.pages });
    rechecked = true;
    $('login-key').value = '';
    await route();
    focusTitle();
  } catch (error) {
    message.textContent = refusedText(error, tenant);
    message.hidden = false;
    $('login-key').focus();
  } finally {
    $('login').removeAttribute('aria-busy');
  }
});
$('signout').addEventListener('click', () => {
  forgetSession();
  window.location.hash = '';
  void route();
});
// The skip link moves focus only: the address's hash is the console's page.
document.querySelector('a.skip').addEventListener('click', (e) => {
  e.preventDefault();
  $('main').focus();
});
window.addEventListener('hashchange', async () => {
  await route();
  focusTitle();
});
void route();
