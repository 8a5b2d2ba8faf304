/* global document, window */
// Building blocks for the console's pages. Data only ever goes into the page as text
// (text nodes and attributes), never as markup.

const { Node } = window;

/** An element with attributes and children (strings become text nodes); `on…` attributes are listeners. */
export const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
};

/** A verdict badge: null while checking. */
/**
 * Whether the reader is working in `container`: the focus is there, on anything but the page's
 * title (which a finished render focuses, not the reader). A render that finishes late leaves
 * such a reader's focus where it is.
 */
export const readerIsIn = (container) => {
  const at = document.activeElement;
  return container.contains(at) && at?.id !== 'page-title';
};

export const badge = (ok, text) =>
  el('span', { class: `badge ${ok === null ? 'wait' : ok ? 'ok' : 'bad'}`, 'data-verified': ok === null ? 'pending' : String(ok) }, text);

/** ISO 8601 in UTC, to the millisecond. */
export const iso = (ms) => (typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : '');
export const time = (ms) => (typeof ms === 'number' ? iso(ms).replace('T', ' ').replace('Z', ' UTC') : '');
export const timeEl = (ms) => (typeof ms === 'number' ? el('time', { datetime: iso(ms) }, time(ms)) : '');

export const table = (headers, rows, caption) =>
  el(
    'table',
    {},
    caption ? el('caption', {}, caption) : null,
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((h) => el('th', { scope: 'col' }, h)),
      ),
    ),
    el('tbody', {}, rows),
  );

/** Long digests (purposes, hashes) shown by their first characters; the whole one a click away. */
export const isDigest = (text) => typeof text === 'string' && /^(sha256:)?[0-9a-f]{32,}$/i.test(text);
export const digest = (text, what = 'hash') => {
  if (!isDigest(text)) return el('q', { class: 'purpose' }, String(text));
  const short = `${text.replace(/^sha256:/, '').slice(0, 8)}…`;
  const full = el('code', { class: 'digest-full', hidden: true }, text);
  const button = el('button', { type: 'button', class: 'digest', 'aria-expanded': 'false', 'aria-label': `${what} ${short}: show it in full` }, short);
  button.addEventListener('click', () => {
    const open = button.getAttribute('aria-expanded') !== 'true';
    button.setAttribute('aria-expanded', String(open));
    full.hidden = !open;
  });
  return el('span', { class: 'digest-wrap' }, button, ' ', full);
};

export const code = (text) => el('code', {}, text);
