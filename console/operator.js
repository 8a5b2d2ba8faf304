/* global window */
// The operator's pages (admin key only): tenants and plugins, a plugin's records with their
// history (metadata only), projection checkpoints and lag, and the event-log browser.
import { badge, code, el, table, time, timeEl } from './dom.js';
import { enc, get } from './http.js';

export const operatorPages = (page, failure, refreshEvery) => ({
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
    if (await load()) refreshEvery(load, p);
  },

  async events(s, q) {
    const prefix = q.get('prefix') ?? '';
    const stream = q.get('stream');
    const p = page(
      'Event log',
      el(
        'p',
        { class: 'note' },
        'Streams and their events as the event store holds them, read only. Sealed values stay sealed: only their data key and size show.',
      ),
    );
    const input = el('input', { name: 'prefix', id: 'stream-prefix', value: prefix, size: 30, placeholder: 'tenant:acme' });
    const form = el(
      'form',
      { class: 'filters card', id: 'streams-form' },
      el('label', {}, 'Stream names starting with ', input),
      el('button', { type: 'submit' }, 'List streams'),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      window.location.hash = `#/events?prefix=${enc(input.value)}`;
    });
    p.append(form);
    try {
      if (stream === null) {
        const after = q.get('after') ?? '';
        const answer = await get(`/v1/events/streams?prefix=${enc(prefix)}&after=${enc(after)}&limit=100`);
        if (answer.streams.length === 0)
          return p.append(el('p', { id: 'streams-empty', role: 'status' }, prefix ? `No stream name starts with “${prefix}”.` : 'The event log is empty.'));
        p.append(
          table(
            ['stream', 'events'],
            answer.streams.map((x) =>
              el(
                'tr',
                { 'data-stream': x.stream },
                el('td', {}, el('a', { href: `#/events?prefix=${enc(prefix)}&stream=${enc(x.stream)}` }, x.stream)),
                el('td', {}, String(x.revision + 1)),
              ),
            ),
            `Streams${prefix ? ` starting with “${prefix}”` : ''}`,
          ),
          answer.scanned === null ? '' : el('p', { class: 'note' }, `Names found by reading the first ${answer.scanned} events of the log.`),
          answer.more
            ? el('p', {}, el('a', { href: `#/events?prefix=${enc(prefix)}&after=${enc(answer.streams.at(-1).stream)}`, rel: 'next' }, 'More streams'))
            : '',
        );
        return;
      }
      const from = Math.max(0, Math.trunc(Number(q.get('from') ?? 0)) || 0);
      const answer = await get(`/v1/events/streams/${enc(stream)}?from=${from}&limit=100`);
      p.append(
        el('h3', {}, 'Stream ', code(stream)),
        el('p', {}, el('a', { href: `#/events?prefix=${enc(prefix)}` }, 'Back to the streams')),
        table(
          ['revision', 'position', 'type', 'version', 'recorded', 'metadata', 'data'],
          answer.events.map((e) =>
            el(
              'tr',
              { 'data-revision': e.revision, 'data-type': e.type },
              el('td', {}, String(e.revision)),
              el('td', {}, String(e.position)),
              el('td', {}, e.type),
              el('td', {}, `v${e.schema_version}`),
              el('td', {}, timeEl(e.recorded_at)),
              el('td', { class: 'detail' }, JSON.stringify(e.metadata)),
              el('td', { class: 'detail' }, eventData(e.data)),
            ),
          ),
          `Events of ${stream} from revision ${from}`,
        ),
        answer.more
          ? el(
              'p',
              {},
              el('a', { href: `#/events?prefix=${enc(prefix)}&stream=${enc(stream)}&from=${from + answer.events.length}`, rel: 'next' }, 'Later events'),
            )
          : '',
      );
    } catch (error) {
      p.append(failure(error));
    }
  },
});

/** An event's data as JSON text, each sealed value shown as a sealed marker, never opened. */
const eventData = (data) => {
  const parts = [];
  const walk = (v) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && v.$sealed && Object.keys(v).length === 1) {
      parts.push(badge(null, `sealed: ${v.$sealed.ciphertext_bytes} bytes under key ${v.$sealed.key}`));
      return;
    }
    if (Array.isArray(v)) {
      parts.push('[');
      v.forEach((x, i) => {
        if (i) parts.push(',');
        walk(x);
      });
      parts.push(']');
      return;
    }
    if (v && typeof v === 'object') {
      parts.push('{');
      Object.entries(v).forEach(([k, x], i) => {
        if (i) parts.push(',');
        parts.push(`${JSON.stringify(k)}:`);
        walk(x);
      });
      parts.push('}');
      return;
    }
    parts.push(JSON.stringify(v));
  };
  walk(data);
  // Adjacent strings joined, so the text reads as JSON between the sealed markers.
  const joined = [];
  for (const x of parts) {
    if (typeof x === 'string' && typeof joined.at(-1) === 'string') joined[joined.length - 1] += x;
    else joined.push(x);
  }
  return el('span', { class: 'event-data' }, joined);
};
