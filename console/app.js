/* global document, window, sessionStorage, fetch, URLSearchParams, setInterval, clearInterval */
// The console (SPEC §14): read-only pages over the JSON API. It sends GET requests only, with
// the key it was given; every proof and signature is checked here, in the browser
// (verify.js), against the audit public key, never taken on the service's word. Data is only
// ever put into the page as text (textContent), never as markup.
import { checkpointSigned, fromBase64, importPublicKey, lineIncluded, receiptSigned, receiptTextSigned, verifyConsistency } from './verify.js';

const SESSION = 'custodian.console';
const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes). */
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null) node.append(c instanceof Node ? c : String(c));
  return node;
};
const { Node } = window;

const session = () => {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION) ?? 'null');
    return s && typeof s.tenant === 'string' && typeof s.key === 'string' ? s : null;
  } catch {
    return null;
  }
};
const isAuditor = (s) => s.key.startsWith('au.');
const enc = encodeURIComponent;

class HttpError extends Error {
  constructor(status, body) {
    super(`${status} ${body?.error ?? ''}${body?.reason ? `: ${body.reason}` : ''}`);
    this.status = status;
    this.body = body;
  }
}

/** A GET with the session's key; the console never sends anything else. */
const get = async (path, as = 'json') => {
  const s = session();
  const res = await fetch(path, { method: 'GET', headers: s ? { authorization: `Bearer ${s.key}` } : {}, cache: 'no-store' });
  const text = await res.text();
  if (!res.ok) {
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: text.slice(0, 200) };
    }
    throw new HttpError(res.status, body);
  }
  return as === 'json' ? JSON.parse(text) : text;
};

const badge = (ok, text) =>
  el('span', { class: `badge ${ok === null ? 'wait' : ok ? 'ok' : 'bad'}`, 'data-verified': ok === null ? 'pending' : String(ok) }, text);
const time = (ms) => (typeof ms === 'number' ? new Date(ms).toISOString().replace('T', ' ').replace('Z', '') : '');
const table = (headers, rows) =>
  el(
    'table',
    {},
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((h) => el('th', {}, h)),
      ),
    ),
    el('tbody', {}, rows),
  );
const failure = (error) =>
  el(
    'p',
    { class: 'error', role: 'alert' },
    error instanceof HttpError && error.status === 401
      ? `This page needs the admin key${session() && isAuditor(session()) ? ': an auditor key reads the audit, revocation, hold and erasure pages only' : ''}.`
      : `Could not load: ${error.message}`,
  );

let refresh = null;
// Each render gets a container of its own: a slow render of a page left behind appends to a
// detached node, never to the page shown now.
const page = (title, ...children) => {
  const p = el('div', {}, el('h2', {}, title), ...children);
  $('page').replaceChildren(p);
  return p;
};

// ---- the audit key and checkpoint, checked once per page load ------------------------------

let publicKey = null;
const auditKey = async () => (publicKey ??= await importPublicKey(await get('/v1/audit-key', 'text')));

/** The log a tenant's checkpoints must name: a checkpoint of any other log proves nothing here. */
const originOf = (tenant) => `custodian/${tenant}`;

/**
 * The audit lines (filters applied) and a checkpoint taken after them, so it covers every one.
 * `signed` holds only for a checkpoint signed by the audit key AND of this tenant's log: another
 * tenant's genuinely signed log, served in its place, is not this one's. Unfiltered, the lines
 * must be the whole signed log; entries appended between the two reads are read once more.
 */
const auditLog = async (tenant, filters = {}) => {
  const q = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== '' && v !== undefined));
  const unfiltered = q.size === 0;
  const read = async () => {
    const text = await get(`/v1/tenants/${enc(tenant)}/audit${q.size ? `?${q}` : ''}`, 'text');
    const lines = text.split('\n').filter((l) => l !== '');
    const checkpoint = await get(`/v1/tenants/${enc(tenant)}/audit/checkpoint`);
    return { lines, checkpoint };
  };
  let { lines, checkpoint } = await read();
  if (unfiltered && lines.length < checkpoint.size) ({ lines, checkpoint } = await read());
  const ofThisLog = checkpoint.origin === originOf(tenant);
  const signed = ofThisLog && (await checkpointSigned(await auditKey(), checkpoint));
  return { lines, checkpoint, signed, ofThisLog, gap: unfiltered ? wholeLogGap(lines, checkpoint.size) : null };
};

/**
 * Why an unfiltered answer is not the whole signed log, or null when it is: every seq from 0 to
 * size − 1 exactly once. Each entry's proof shows it is IN the tree; only this shows none was
 * left out, and none shown twice.
 */
const wholeLogGap = (lines, size) => {
  const seen = new Set();
  for (const line of lines) {
    let seq;
    try {
      seq = JSON.parse(line).seq;
    } catch {
      return 'an entry is not JSON';
    }
    if (seen.has(seq)) return `entry ${seq} is shown more than once`;
    seen.add(seq);
  }
  for (let i = 0; i < size; i++) if (!seen.has(i)) return `entry ${i} of the signed log (size ${size}) is missing from the answer`;
  return null;
};

/** One line's inclusion proof, fetched and checked in the browser against the signed checkpoint. */
const checkLine = async (tenant, line, log) => {
  if (!log.signed) return { ok: false, reason: 'the checkpoint signature does not verify' };
  let seq;
  try {
    seq = JSON.parse(line).seq;
  } catch {
    return { ok: false, reason: 'the line is not JSON' };
  }
  if (!Number.isSafeInteger(seq) || seq < 0 || seq >= log.checkpoint.size) return { ok: false, reason: 'the entry is outside the signed tree' };
  try {
    const proof = await get(`/v1/tenants/${enc(tenant)}/audit/proof?leaf=${seq}&size=${log.checkpoint.size}`);
    return await lineIncluded(line, proof, log.checkpoint);
  } catch (error) {
    return { ok: false, reason: `no proof: ${error.message}` };
  }
};

const checkpointCard = (log) =>
  el(
    'div',
    { class: 'card', id: 'checkpoint' },
    el('strong', {}, 'Signed checkpoint '),
    badge(log.signed, log.signed ? 'signature verified' : log.ofThisLog ? 'signature NOT verified' : 'NOT this tenant’s log'),
    el('p', { class: 'note' }, `${log.checkpoint.origin} · size ${log.checkpoint.size} · root ${log.checkpoint.root}`),
  );

/**
 * The log only grows: the last signed checkpoint this tab verified is kept, and the next one
 * must extend it (an RFC 6962 consistency proof, checked here). A history rewritten or cut
 * short between two visits turns this red even when every entry shown proves in the new tree.
 */
const consistencyCard = async (tenant, log) => {
  const card = el('p', { id: 'consistency', 'data-state': 'none' });
  if (!log.signed && log.ofThisLog) return card;
  const store = `custodian.checkpoint.${tenant}`;
  let seen = null;
  try {
    seen = JSON.parse(sessionStorage.getItem(store) ?? 'null');
  } catch {
    seen = null;
  }
  const cp = log.checkpoint;
  const verdict = async () => {
    if (!seen || seen.origin !== originOf(tenant) || !(await checkpointSigned(await auditKey(), seen)) || seen.size === 0) return null;
    // Kept only for this tenant's log (above): a checkpoint of another log never extends it.
    if (cp.origin !== seen.origin) return { ok: false, reason: `the checkpoint is of another log (${cp.origin})` };
    if (seen.size > cp.size) return { ok: false, reason: `the log shrank from ${seen.size} to ${cp.size} entries` };
    try {
      const proof = await get(`/v1/tenants/${enc(tenant)}/audit/proof?from=${seen.size}&to=${cp.size}`);
      const path = (proof.proof ?? []).map(fromBase64);
      if (path.some((x) => x === null)) return { ok: false, reason: 'the proof is not base64' };
      const ok = await verifyConsistency(seen.size, cp.size, path, fromBase64(seen.root), fromBase64(cp.root));
      return { ok, reason: ok ? '' : 'this tree does not extend the one seen before: history was rewritten' };
    } catch (error) {
      return { ok: false, reason: `no consistency proof: ${error.message}` };
    }
  };
  const result = await verdict();
  if (result) {
    card.replaceChildren(
      badge(result.ok, result.ok ? 'consistent' : 'NOT consistent'),
      ` with the checkpoint this tab verified before (size ${seen.size})${result.ok ? '' : `: ${result.reason}`}.`,
    );
    card.dataset.state = result.ok ? 'consistent' : 'inconsistent';
  }
  // A tree that failed to extend the one seen, or any checkpoint not verified as this tenant's, is not taken as the new reference.
  if (log.signed && (!result || result.ok)) sessionStorage.setItem(store, JSON.stringify(cp));
  return card;
};

/** Rows whose badge turns green or red once its proof is checked; answers how many verified. */
const verifyRows = async (tenant, log, items, onResult) => {
  let verified = 0;
  // A few at a time: each is one proof request.
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item; item = queue.shift()) {
      const result = await checkLine(tenant, item.line, log);
      if (result.ok) verified++;
      onResult(item, result);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return verified;
};

const setBadge = (row, result, what = 'verified') => {
  const cell = row.querySelector('.proof');
  cell.replaceChildren(badge(result.ok, result.ok ? what : `NOT ${what}`), result.ok ? '' : el('div', { class: 'note' }, result.reason));
  row.dataset.state = result.ok ? 'verified' : 'failed';
  if (!result.ok) row.classList.add('failed');
};

// ---- pages ----------------------------------------------------------------------------------

const pages = {
  async tenants(s) {
    const p = page('Tenants and plugins');
    try {
      const { tenants } = await get('/v1/console/tenants');
      for (const id of tenants) {
        const { tenant } = await get(`/v1/tenants/${enc(id)}`);
        p.append(
          el(
            'div',
            { class: 'card', 'data-tenant': id },
            el('h3', {}, id, id === s.tenant ? ' (this session)' : ''),
            el('p', { class: 'note' }, `authority epoch ${tenant.authority_epoch} · created ${time(tenant.created_ms)}`),
            table(
              ['plugin', 'install gen', 'scopes', 'functions', 'agents', 'start-up'],
              tenant.plugins.map((pl) =>
                el(
                  'tr',
                  {},
                  el('td', {}, el('a', { href: `#/records?tenant=${enc(id)}&plugin=${enc(pl.name)}` }, pl.name)),
                  el('td', {}, pl.install_gen),
                  el('td', { class: 'detail' }, JSON.stringify(pl.scopes)),
                  el('td', {}, (pl.functions ?? []).join(', ')),
                  el('td', {}, (pl.agents ?? []).join(', ')),
                  el('td', {}, pl.startup ?? ''),
                ),
              ),
            ),
          ),
        );
      }
    } catch (error) {
      p.append(failure(error));
    }
  },

  async records(s, q) {
    const tenant = q.get('tenant') || s.tenant;
    const p = page(
      'Records',
      el('p', { class: 'note' }, 'Metadata only. The console reads no bodies: a body read needs a purpose-bearing ticket and is itself an audited act.'),
    );
    try {
      const { tenant: t } = await get(`/v1/tenants/${enc(tenant)}`);
      const plugin = q.get('plugin') || t.plugins[0]?.name;
      const scope = q.get('scope') ?? '';
      const form = el(
        'form',
        { class: 'filters card', id: 'records-form' },
        el(
          'label',
          {},
          'Plugin ',
          el(
            'select',
            { name: 'plugin' },
            t.plugins.map((pl) => el('option', { value: pl.name, selected: pl.name === plugin }, pl.name)),
          ),
        ),
        el('label', {}, 'Scope ', el('input', { name: 'scope', value: scope, placeholder: 'every scope' })),
        el('button', { type: 'submit' }, 'Show'),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const f = new window.FormData(form);
        window.location.hash = `#/records?tenant=${enc(tenant)}&plugin=${enc(f.get('plugin'))}&scope=${enc(f.get('scope'))}`;
      });
      p.append(form);
      if (!plugin) return p.append(el('p', {}, 'No plugin is installed.'));
      const { records } = await get(`/v1/tenants/${enc(tenant)}/console/records?plugin=${enc(plugin)}${scope ? `&scope=${enc(scope)}` : ''}`);
      // One table per scope; within it each record's versions, newest first (its history).
      const scopes = new Map();
      for (const r of records) scopes.set(r.scope, [...(scopes.get(r.scope) ?? []), r]);
      for (const [name, rows] of scopes)
        p.append(
          el('h3', { 'data-scope': name }, `Scope ${name}`),
          table(
            ['key', 'version', 'state', 'kind', 'writer job', 'writer agent', 'labels', 'ends', 'written'],
            rows.map((r, i) =>
              el(
                'tr',
                { 'data-record': `${r.scope}#${r.key}#${r.version}`, class: i > 0 && rows[i - 1].key === r.key ? 'older' : 'newest' },
                el('td', {}, i > 0 && rows[i - 1].key === r.key ? '' : r.key),
                el('td', {}, r.version),
                el('td', {}, r.closed ? `${r.state} (closed)` : r.state),
                el('td', {}, r.kind),
                el('td', {}, r.writer_job),
                el('td', {}, r.writer_agent),
                el('td', {}, Array.isArray(r.labels) ? r.labels.join(', ') : ''),
                el('td', {}, r.ends_at > 0 ? time(r.ends_at) : ''),
                el('td', {}, time(r.created_ms)),
              ),
            ),
          ),
        );
      p.append(
        el('p', { class: 'note' }, `${records.length} versions${records.length === 0 ? '' : ` in ${scopes.size} scope${scopes.size === 1 ? '' : 's'}`}.`),
      );
    } catch (error) {
      p.append(failure(error));
    }
  },

  async collections(s) {
    const p = page('Agent collections', el('p', { class: 'note' }, 'Names and counts, newest first; refreshed every 5 seconds. No values are read.'));
    const body = el('div', { id: 'collections' });
    p.append(body);
    const load = async () => {
      try {
        const { agents } = await get(`/v1/tenants/${enc(s.tenant)}/console/collections`);
        body.replaceChildren(
          ...(agents.length === 0 ? [el('p', {}, 'No agent has a key in this tenant.')] : []),
          ...agents.map((a) =>
            el(
              'div',
              { class: 'card' },
              el('h3', {}, a.agent),
              table(
                ['collection', 'records', 'newest'],
                a.collections.map((c) => el('tr', {}, el('td', {}, c.name), el('td', {}, c.records), el('td', {}, time(c.newest_ms)))),
              ),
            ),
          ),
        );
      } catch (error) {
        body.replaceChildren(failure(error));
        return false;
      }
      return true;
    };
    if (await load()) refresh = setInterval(load, 5_000);
  },

  async audit(s, q) {
    const filters = Object.fromEntries(['job', 'record', 'kind', 'subject', 'since', 'until', 'epoch'].map((k) => [k, q.get(k) ?? '']));
    const form = el(
      'form',
      { class: 'filters card', id: 'audit-filters' },
      Object.entries(filters).map(([k, v]) =>
        el(
          'label',
          {},
          `${k} `,
          el('input', { name: k, value: v, size: 14, placeholder: k === 'record' ? 'scope#key[#version]' : k === 'since' || k === 'until' ? 'ms' : '' }),
        ),
      ),
      el('button', { type: 'submit' }, 'Filter'),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const f = new URLSearchParams([...new window.FormData(form)].filter(([, v]) => v !== ''));
      window.location.hash = `#/audit?${f}`;
    });
    const p = page('Audit timeline', form);
    try {
      const log = await auditLog(s.tenant, filters);
      const summary = el('p', { id: 'audit-summary', 'data-state': 'checking' }, `Checking ${log.lines.length} entries…`);
      p.append(checkpointCard(log), await consistencyCard(s.tenant, log), summary);
      const items = log.lines.map((line) => {
        let e = {};
        try {
          e = JSON.parse(line);
        } catch {
          // shown as failing below
        }
        const { seq, at, kind, job, subject, ...rest } = e;
        const row = el(
          'tr',
          { 'data-seq': seq, 'data-kind': kind, 'data-state': 'checking' },
          el('td', {}, seq),
          el('td', {}, time(at)),
          el('td', {}, kind),
          el('td', {}, job ?? ''),
          el('td', {}, subject ?? ''),
          el('td', { class: 'detail' }, JSON.stringify(rest)),
          el('td', { class: 'proof' }, badge(null, 'checking')),
        );
        return { line, row };
      });
      p.append(
        table(
          ['seq', 'at', 'kind', 'job', 'subject', 'entry', 'inclusion proof'],
          items.map((i) => i.row),
        ),
      );
      const verified = await verifyRows(s.tenant, log, items, (item, result) => setBadge(item.row, result));
      const all = verified === items.length && log.signed && log.gap === null;
      summary.replaceChildren(
        badge(all, all ? 'ALL VERIFIED' : 'NOT ALL VERIFIED'),
        ` ${verified} of ${items.length} entries verified against the signed checkpoint (size ${log.checkpoint.size}).`,
        log.ofThisLog ? '' : ` The checkpoint is of another log (${log.checkpoint.origin}), not ${originOf(s.tenant)}.`,
        log.gap === null ? '' : ` The answer is not the whole log: ${log.gap}.`,
      );
      summary.dataset.state = all ? 'verified' : 'failed';
      summary.dataset.verified = String(verified);
      summary.dataset.total = String(items.length);
    } catch (error) {
      p.append(failure(error));
    }
  },

  async revocations(s) {
    const p = page('Revocation batches and receipts');
    try {
      const batches = await auditLog(s.tenant, { kind: 'revocation' });
      const receipts = await auditLog(s.tenant, { kind: 'revocation_receipt' });
      const key = await auditKey();
      const byEpoch = new Map(receipts.lines.map((l) => [JSON.parse(l).epoch, l]));
      p.append(checkpointCard(receipts));
      const rows = [];
      for (const line of batches.lines) {
        const b = JSON.parse(line);
        const receiptLine = byEpoch.get(b.epoch);
        const receipt = receiptLine ? JSON.parse(receiptLine).receipt : null;
        const row = el(
          'tr',
          { 'data-epoch': b.epoch },
          el('td', {}, b.epoch),
          el('td', {}, time(b.at)),
          el('td', { class: 'detail' }, JSON.stringify(b.revocations ?? b.items)),
          el('td', { class: 'detail' }, receipt ? JSON.stringify(receipt.stopped ?? []) : ''),
          el('td', { class: 'signature' }, receipt ? badge(null, 'checking') : badge(false, 'no receipt')),
          el('td', { class: 'proof' }, badge(null, 'checking')),
        );
        rows.push(row);
        if (receipt) {
          const ok = await receiptSigned(key, receipt);
          row.querySelector('.signature').replaceChildren(badge(ok, ok ? 'receipt signature verified' : 'receipt signature NOT verified'));
        }
        setBadge(row, receiptLine ? await checkLine(s.tenant, receiptLine, receipts) : { ok: false, reason: 'no receipt entry' });
      }
      p.append(table(['epoch', 'at', 'revocations', 'stopped', 'receipt', 'in the signed log'], rows));
      if (rows.length === 0) p.append(el('p', {}, 'No revocation batch yet.'));
    } catch (error) {
      p.append(failure(error));
    }
  },

  async compliance(s) {
    const p = page('Holds, erasures and their receipts');
    try {
      const key = await auditKey();
      const sections = [
        ['Holds placed', 'hold_placed', ['hold', 'reason', 'selector'], (e) => [e.hold, e.reason, JSON.stringify(e.selector)]],
        ['Holds released', 'hold_released', ['hold'], (e) => [e.hold]],
        ['Erasures requested', 'erasure_requested', ['data subject'], (e) => [e.subject]],
        ['Erasures', 'erasure', ['data subject', 'records erased'], (e) => [e.subject, e.records_erased]],
      ];
      for (const [title, kind, headers, cells] of sections) {
        const log = await auditLog(s.tenant, { kind });
        const rows = [];
        for (const line of log.lines) {
          const e = JSON.parse(line);
          const receipt = e.receipt && typeof e.receipt === 'object' ? e.receipt : null;
          const row = el(
            'tr',
            { 'data-kind': kind, 'data-seq': e.seq },
            el('td', {}, time(e.at)),
            cells(e).map((c) => el('td', { class: 'detail' }, c)),
            el('td', { class: 'signature' }, receipt ? badge(await receiptSigned(key, receipt), '') : ''),
            el('td', { class: 'proof' }, badge(null, 'checking')),
          );
          const sig = row.querySelector('.signature .badge');
          if (sig) sig.textContent = sig.dataset.verified === 'true' ? 'receipt signature verified' : 'receipt signature NOT verified';
          setBadge(row, await checkLine(s.tenant, line, log));
          rows.push(row);
        }
        p.append(el('h3', {}, title), rows.length ? table(['at', ...headers, 'receipt', 'in the signed log'], rows) : el('p', { class: 'note' }, 'None.'));
      }
    } catch (error) {
      p.append(failure(error));
    }
  },

  async receipt() {
    const input = el('textarea', { id: 'receipt-input', spellcheck: 'false', placeholder: '{"epoch": …, "signature": "…"}' });
    const result = el('div', { id: 'receipt-result', 'data-state': 'empty' });
    const form = el(
      'form',
      { class: 'card', id: 'receipt-form' },
      el('label', {}, 'A receipt, as JSON (revocation or erasure)', input),
      el('button', { type: 'submit' }, 'Check'),
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const ok = await receiptTextSigned(await auditKey(), input.value);
      result.replaceChildren(
        badge(ok, ok ? 'RECEIPT VERIFIED' : 'RECEIPT REFUSED'),
        ok ? ' Signed by this service’s audit key.' : ' Not signed by this service’s audit key, or altered since it was signed.',
      );
      result.dataset.state = ok ? 'verified' : 'refused';
    });
    page(
      'Check a receipt',
      el('p', { class: 'note' }, 'Checked here, in the browser (Ed25519, WebCrypto), with the public key from /v1/audit-key.'),
      form,
      result,
    );
  },

  async projections() {
    const p = page('Projections', el('p', { class: 'note' }, 'Checkpoints and lag behind the log; refreshed every 5 seconds.'));
    const body = el('div', { id: 'projections' });
    p.append(body);
    const load = async () => {
      try {
        const { head, projections } = await get('/v1/console/projections');
        body.replaceChildren(
          el('p', {}, `Log head: position ${head}.`),
          table(
            ['projection', 'checkpoint', 'behind (events)', 'behind (seconds)'],
            projections.map((x) =>
              el(
                'tr',
                { 'data-projection': x.name },
                el('td', {}, x.name),
                el('td', {}, x.position),
                el('td', {}, x.lag_events),
                el('td', {}, (x.lag_ms / 1000).toFixed(1)),
              ),
            ),
          ),
        );
      } catch (error) {
        body.replaceChildren(failure(error));
        return false;
      }
      return true;
    };
    if (await load()) refresh = setInterval(load, 5_000);
  },
};

// ---- routing and the key --------------------------------------------------------------------

const route = async () => {
  if (refresh !== null) clearInterval(refresh);
  refresh = null;
  const s = session();
  $('login').hidden = s !== null;
  $('page').hidden = s === null;
  $('nav').hidden = s === null;
  $('signout').hidden = s === null;
  $('who').textContent = s ? `${s.tenant} · ${isAuditor(s) ? 'auditor key' : 'admin key'}` : '';
  if (!s) return;
  const [path, query] = (window.location.hash.replace(/^#\/?/, '') || (isAuditor(s) ? 'audit' : 'tenants')).split('?');
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('current', a.getAttribute('href') === `#/${path}`);
  const render = Object.hasOwn(pages, path) ? pages[path] : null;
  if (!render) return page('Not a page', el('p', {}, `No page ${path}.`));
  await render(s, new URLSearchParams(query ?? ''));
};

$('login').addEventListener('submit', (e) => {
  e.preventDefault();
  sessionStorage.setItem(SESSION, JSON.stringify({ tenant: $('login-tenant').value.trim(), key: $('login-key').value.trim() }));
  $('login-key').value = '';
  void route();
});
$('signout').addEventListener('click', () => {
  sessionStorage.removeItem(SESSION);
  window.location.hash = '';
  void route();
});
window.addEventListener('hashchange', () => void route());
void route();
