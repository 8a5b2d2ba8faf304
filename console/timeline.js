/* global window, URLSearchParams, performance */
// The audit timeline: a page of entries as sentences, each opening to its canonical JSON,
// leaf hash, inclusion proof and the checkpoint it was checked against; filters picked from
// what the log holds; proofs fetched for the page shown only.
import { PAGE, checkLines, consistencyWithSeen, cosignersOf, pageGap, readLog } from './audit-log.js';
import { badge, code, el, iso, readerIsIn, timeEl } from './dom.js';
import { enc, get } from './http.js';
import { KIND_NAMES, sentence } from './sentences.js';

const FILTERS = ['kind', 'job', 'record', 'subject', 'since', 'until', 'epoch'];

/** `2026-12-01T11:15:00.000Z` → the value a datetime-local input shows (UTC, to the second). */
const pickerValue = (text) => {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? iso(ms).slice(0, 19) : '';
};
/** A datetime-local value read as UTC → ISO 8601, or null when it is not a date-time. */
const fromPicker = (value) => {
  if (!value) return '';
  const ms = Date.parse(`${value}Z`);
  return Number.isFinite(ms) ? iso(ms) : null;
};

const option = (value, label, selected) => el('option', { value, selected: selected || undefined }, label);

const filterForm = (facets, filters) => {
  const kinds = facets?.kinds ?? [];
  const jobs = facets?.jobs ?? [];
  const records = facets?.records ?? [];
  const error = el('p', { class: 'error', id: 'filter-error', role: 'alert', hidden: true });
  const field = (label, control) => el('label', {}, label, ' ', control);
  const form = el(
    'form',
    { class: 'filters card', id: 'audit-filters', 'aria-label': 'Filter the audit timeline' },
    field(
      'Kind',
      el(
        'select',
        { name: 'kind', id: 'filter-kind' },
        option('', 'any kind', !filters.kind),
        kinds.map((k) => option(k.kind, `${KIND_NAMES[k.kind] ?? k.kind} (${k.entries})`, k.kind === filters.kind)),
        filters.kind && !kinds.some((k) => k.kind === filters.kind) ? option(filters.kind, `${filters.kind} (none)`, true) : null,
      ),
    ),
    field(
      'Job',
      el(
        'select',
        { name: 'job', id: 'filter-job' },
        option('', 'any job', !filters.job),
        jobs.map((j) => option(j.job, `${j.job}${j.agent ? ` · ${j.agent}` : ''} (${j.entries})`, j.job === filters.job)),
        filters.job && !jobs.some((j) => j.job === filters.job) ? option(filters.job, `${filters.job} (none)`, true) : null,
      ),
    ),
    field(
      'Record',
      el(
        'select',
        { name: 'record', id: 'filter-record' },
        option('', 'any record', !filters.record),
        records.flatMap((r) => [
          option(r.record, `${r.record.replace('#', '/')} (every version)`, r.record === filters.record),
          ...r.versions.map((v) => option(`${r.record}#${v}`, `${r.record.replace('#', '/')} v${v}`, `${r.record}#${v}` === filters.record)),
        ]),
        filters.record && !records.some((r) => filters.record.startsWith(r.record)) ? option(filters.record, `${filters.record} (none)`, true) : null,
      ),
    ),
    field('Subject', el('input', { name: 'subject', id: 'filter-subject', value: filters.subject, size: 14, placeholder: 'user:ada' })),
    field('From (UTC)', el('input', { name: 'since', id: 'filter-since', type: 'datetime-local', step: 1, value: pickerValue(filters.since) })),
    field('Until (UTC)', el('input', { name: 'until', id: 'filter-until', type: 'datetime-local', step: 1, value: pickerValue(filters.until) })),
    el('button', { type: 'submit' }, 'Filter'),
    el('a', { href: '#/audit', class: 'button-link' }, 'Clear filters'),
    error,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const out = new URLSearchParams();
    for (const [k, v] of new window.FormData(form)) {
      if (v === '') continue;
      if (k === 'since' || k === 'until') {
        const at = fromPicker(String(v));
        if (at === null) {
          error.hidden = false;
          error.textContent = `${k === 'since' ? 'From' : 'Until'} is not a date and time: pick one, or leave it empty.`;
          return;
        }
        out.set(k, at);
      } else out.set(k, String(v));
    }
    if (filters.epoch) out.set('epoch', filters.epoch);
    // The entries shown are no longer the ones asked for: say so at once, before the new page
    // replaces them (the address changes now, the page only when its route runs).
    const next = `#/audit${out.size ? `?${out}` : ''}`;
    const summary = window.document.getElementById('audit-summary');
    if (summary && next !== window.location.hash) summary.dataset.state = 'checking';
    window.location.hash = next;
  });
  return form;
};

/** The audit stream's query for the filters: dates as ms. Null when a date does not parse. */
const apiFilters = (filters) => {
  const out = {};
  for (const k of FILTERS) {
    const v = filters[k];
    if (!v) continue;
    if (k === 'since' || k === 'until') {
      const ms = Date.parse(v);
      if (!Number.isFinite(ms)) return null;
      out[k] = ms;
    } else out[k] = v;
  }
  return out;
};

const hashWith = (filters, extra) => {
  const q = new URLSearchParams(Object.entries({ ...filters, ...extra }).filter(([, v]) => v !== '' && v !== undefined && v !== null));
  return `#/audit?${q}`;
};

/** Which witnesses cosigned the checkpoint (names from its cosignature lines), or that none has yet. */
const witnessesNote = (checkpoint) => {
  const names = cosignersOf(checkpoint);
  return names.length > 0 ? `cosigned by ${names.join(', ')}` : 'no witness cosignature yet';
};

const checkpointBlock = (log, title = 'Checked against') =>
  el(
    'div',
    { class: 'checkpoint-detail' },
    el('h4', {}, title),
    el(
      'dl',
      {},
      el('dt', {}, 'log'),
      el('dd', {}, code(log.checkpoint.origin)),
      el('dt', {}, 'tree size'),
      el('dd', {}, String(log.checkpoint.size)),
      el('dt', {}, 'root'),
      el('dd', {}, code(log.checkpoint.root)),
      el('dt', {}, 'signature'),
      el('dd', {}, badge(log.signed, log.signed ? 'verified with the audit key' : 'NOT verified')),
      el('dt', {}, 'witnesses'),
      el('dd', {}, witnessesNote(log.checkpoint)),
    ),
  );

/** What an entry opens to: the exact bytes hashed, the leaf hash computed here, the proof path, the checkpoint. */
const detailOf = (item, log) => {
  const r = item.result;
  return [
    el('h4', {}, 'Canonical JSON (the exact text hashed as the leaf)'),
    el('pre', { class: 'json', tabindex: 0, 'aria-label': `canonical JSON of entry ${item.seq}` }, item.line),
    el('h4', {}, 'Leaf hash: SHA-256(0x00 ‖ the text), computed in this browser'),
    r?.leaf
      ? el(
          'p',
          {},
          code(r.leaf),
          ' ',
          r.served_leaf === null ? '' : badge(r.served_leaf === r.leaf, r.served_leaf === r.leaf ? 'the same as the service’s' : 'NOT the service’s'),
        )
      : el('p', { class: 'note' }, r ? r.reason : 'checking…'),
    el('h4', {}, `Inclusion proof: ${r?.path ? r.path.length : '…'} hashes, from the leaf up to the root`),
    r?.path
      ? el(
          'ol',
          { class: 'proof-path', start: 1 },
          r.path.map((h) => el('li', {}, code(h))),
        )
      : el('p', { class: 'note' }, 'checking…'),
    el('p', {}, 'Result: ', r ? badge(r.ok, r.ok ? 'included in the signed tree' : `NOT included: ${r.reason}`) : badge(null, 'checking')),
    checkpointBlock(log),
  ];
};

const setOpen = (item, log, open) => {
  item.button.setAttribute('aria-expanded', String(open));
  item.button.textContent = open ? 'Hide proof' : 'Show proof';
  item.detail.hidden = !open;
  if (open) item.detail.replaceChildren(...detailOf(item, log));
};

const entryItem = (line, log) => {
  let e = {};
  try {
    e = JSON.parse(line);
  } catch {
    // shown as failing below
  }
  const seq = e.seq;
  const detail = el('div', { class: 'entry-detail', id: `entry-${seq}-detail`, hidden: true });
  const button = el('button', { type: 'button', class: 'open', 'aria-expanded': 'false', 'aria-controls': `entry-${seq}-detail` }, 'Show proof');
  const row = el(
    'li',
    { class: 'entry', 'data-seq': seq, 'data-kind': e.kind, 'data-state': 'checking', id: `entry-${seq}` },
    el(
      'div',
      { class: 'entry-head' },
      el('span', { class: 'seq' }, `#${seq}`),
      el('span', { class: 'at' }, timeEl(e.at)),
      el('span', { class: 'sentence' }, ...sentence(e), '.'),
      el('span', { class: 'proof' }, badge(null, 'checking')),
      button,
    ),
    detail,
  );
  const item = { line, seq, row, button, detail, result: null };
  button.addEventListener('click', () => setOpen(item, log, button.getAttribute('aria-expanded') !== 'true'));
  return item;
};

const showResult = (item, log, result) => {
  item.result = result;
  item.row
    .querySelector('.proof')
    .replaceChildren(badge(result.ok, result.ok ? 'verified' : 'NOT verified'), result.ok ? '' : el('div', { class: 'note' }, result.reason));
  item.row.dataset.state = result.ok ? 'verified' : 'failed';
  if (!result.ok) item.row.classList.add('failed');
  if (!item.detail.hidden) item.detail.replaceChildren(...detailOf(item, log));
};

const consistencyNote = ({ result, seen }) => {
  const card = el('p', { id: 'consistency', 'data-state': 'none' });
  if (!result) return card;
  card.replaceChildren(
    badge(result.ok, result.ok ? 'consistent' : 'NOT consistent'),
    ` with the checkpoint this browser verified before (size ${seen.size})${result.ok ? '' : `: ${result.reason}`}.`,
  );
  card.dataset.state = result.ok ? 'consistent' : 'inconsistent';
  return card;
};

const pager = (filters, { first, last, from, size, filtered, hasNext }, where = '') => {
  const nav = el('nav', { class: 'pager', 'aria-label': where ? 'Timeline pages, at the end' : 'Timeline pages' });
  const link = (label, hash, rel) => el('a', { href: hash, rel, class: 'button-link' }, label);
  if (!filtered) {
    const pages = Math.max(1, Math.ceil(size / PAGE));
    const at = Math.floor(from / PAGE) + 1;
    const go = el('input', { type: 'number', min: 1, max: pages, value: at, id: `page-number${where}`, 'aria-label': 'page number', size: 6 });
    const jump = el('form', { class: 'jump' }, el('label', { for: `page-number${where}` }, 'Go to page '), go, el('button', { type: 'submit' }, 'Go'));
    jump.addEventListener('submit', (e) => {
      e.preventDefault();
      const n = Math.min(pages, Math.max(1, Math.trunc(Number(go.value)) || 1));
      window.location.hash = hashWith(filters, { from: (n - 1) * PAGE });
    });
    nav.append(
      ...[
        el('span', { id: `page-of${where}`, 'data-page': at, 'data-pages': pages }, `Page ${at} of ${pages}`),
        at > 1 ? link('First', hashWith(filters, { from: 0 }), 'first') : null,
        at > 1 ? link('Previous', hashWith(filters, { from: (at - 2) * PAGE }), 'prev') : null,
        at < pages ? link('Next', hashWith(filters, { from: at * PAGE }), 'next') : null,
        at < pages ? link('Last', hashWith(filters, { from: (pages - 1) * PAGE }), 'last') : null,
        jump,
      ].filter(Boolean),
    );
    return nav;
  }
  nav.append(
    ...[
      el('span', { id: `page-of${where}` }, first === null ? 'No entries here' : `Entries #${first} to #${last}`),
      first !== null && first > 0 ? link('Earlier', hashWith(filters, { before: first }), 'prev') : null,
      hasNext ? link('Later', hashWith(filters, { from: last + 1 }), 'next') : null,
    ].filter(Boolean),
  );
  return nav;
};

export const timelinePage = async (s, q, page, failure) => {
  const filters = Object.fromEntries(FILTERS.map((k) => [k, q.get(k) ?? '']));
  const filtered = Object.values(filters).some((v) => v !== '');
  const fromParam = Number(q.get('from') ?? 0);
  const beforeParam = q.get('before');
  const from = Number.isSafeInteger(fromParam) && fromParam >= 0 ? fromParam : 0;
  const open = q.get('open');
  const p = page('Audit timeline');
  const started = performance.now();
  try {
    const api = apiFilters(filters);
    if (api === null) throw new Error('a date in the address is not a date and time: pick it again in the filters');
    const paging = beforeParam !== null && filtered ? { before_seq: Number(beforeParam), limit: PAGE } : { from_seq: from, limit: PAGE + 1 };
    const [facets, log] = await Promise.all([get(`/v1/tenants/${enc(s.tenant)}/console/audit-facets`), readLog(s.tenant, { ...api, ...paging })]);
    const hasNext = paging.from_seq !== undefined ? log.lines.length > PAGE : true;
    if (log.lines.length > PAGE) log.lines = log.lines.slice(0, PAGE);
    const items = log.lines.map((line) => entryItem(line, log));
    const first = items[0]?.seq ?? null;
    const last = items.at(-1)?.seq ?? null;
    const gap = filtered ? null : pageGap(log.lines, from, log.checkpoint.size, PAGE);
    const consistency = await consistencyWithSeen(s.tenant, log);
    const summary = el('p', { id: 'audit-summary', 'data-state': 'checking', role: 'status' }, `Checking ${items.length} entries…`);
    p.append(
      filterForm(facets, filters),
      el(
        'div',
        { class: 'card', id: 'checkpoint' },
        el('strong', {}, 'Signed checkpoint '),
        badge(log.signed, log.signed ? 'signature verified' : log.ofThisLog ? 'signature NOT verified' : 'NOT this tenant’s log'),
        el('p', { class: 'note' }, `${log.checkpoint.origin} · size ${log.checkpoint.size} · root ${log.checkpoint.root}`),
        el('p', { class: 'note', id: 'cosigners' }, witnessesNote(log.checkpoint)),
        consistencyNote(consistency),
      ),
    );
    if (items.length === 0) {
      const empty = log.checkpoint.size === 0;
      const state = empty ? 'empty-log' : filtered ? 'no-match' : 'no-page';
      p.append(
        el(
          'div',
          { class: 'card empty', id: 'audit-empty', 'data-state': state, role: 'status' },
          empty
            ? el('p', {}, el('strong', {}, 'The log is empty.'), ' Nothing in this tenant has been audited yet.')
            : filtered
              ? el(
                  'p',
                  {},
                  el('strong', {}, 'No entry matches these filters.'),
                  ` The log holds ${log.checkpoint.size} entries; none of them is of this kind, job, record, subject and time together. `,
                  el('a', { href: '#/audit' }, 'Clear the filters'),
                  '.',
                )
              : el('p', {}, el('strong', {}, 'No entries on this page.'), ' ', el('a', { href: '#/audit' }, 'Go to the first page'), '.'),
        ),
      );
      summary.dataset.state = state;
      summary.replaceChildren(badge(log.signed, log.signed ? 'checkpoint verified' : 'checkpoint NOT verified'), ' No entries to check on this page.');
      p.append(summary);
      return;
    }
    p.append(
      summary,
      pager(filters, { first, last, from, size: log.checkpoint.size, filtered, hasNext }),
      el(
        'ol',
        { class: 'timeline', 'aria-label': 'Audit entries' },
        items.map((i) => i.row),
      ),
      pager(filters, { first, last, from, size: log.checkpoint.size, filtered, hasNext }, '-end'),
    );
    const verified = await checkLines(s.tenant, log, items, (item, result) => showResult(item, log, result));
    const all = verified === items.length && log.signed && gap === null && consistency.result?.ok !== false;
    const ms = Math.round(performance.now() - started);
    summary.replaceChildren(
      badge(all, all ? 'ALL VERIFIED' : 'NOT ALL VERIFIED'),
      ` ${verified} of ${items.length} entries on this page verified against the signed checkpoint (size ${log.checkpoint.size}).`,
      log.ofThisLog ? '' : ` The checkpoint is of another log (${log.checkpoint.origin}).`,
      gap === null ? '' : ` The answer is not the whole page: ${gap}.`,
      consistency.result?.ok === false ? ' The log is not consistent with the checkpoint verified before.' : '',
    );
    Object.assign(summary.dataset, { state: all ? 'verified' : 'failed', verified: String(verified), total: String(items.length), ms: String(ms) });
    const wanted = open === null ? null : items.find((i) => String(i.seq) === open);
    if (wanted) {
      setOpen(wanted, log, true);
      // The entry takes the view and the focus only if the reader is not already working in
      // this page (a filter typed while the proofs were checked keeps its text, Enter and place).
      if (!readerIsIn(p)) {
        wanted.row.scrollIntoView({ block: 'center' });
        wanted.button.focus();
      }
    }
  } catch (error) {
    p.append(failure(error));
  }
};
