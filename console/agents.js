// An agent's records by collection, newest first, read only, refreshing (seed 003's Records
// tab). Ids and times only, for every key: a value is the agent's to read, under its own key,
// and that read is audited; the console's keys see that a record is there and when it changed.
import { code, el, table, timeEl } from './dom.js';
import { enc, get } from './http.js';

export const agentPages = (page, failure, refreshEvery) => ({
  async collections(s) {
    const p = page(
      'Agent records',
      el(
        'p',
        { class: 'note' },
        'Each agent’s records by collection, newest first; refreshed every 5 seconds. Ids and times only: a value is the agent’s to read, under its own key, and that read is audited.',
      ),
    );
    const body = el('div', { id: 'collections', 'aria-live': 'polite' });
    const stamp = el('p', { class: 'note', id: 'collections-refreshed' });
    p.append(stamp, body);
    const load = async () => {
      try {
        const { agents } = await get(`/v1/tenants/${enc(s.tenant)}/console/agent-records?limit=100`);
        body.replaceChildren(
          ...(agents.length === 0 ? [el('p', { role: 'status' }, 'No agent has a key in this tenant.')] : []),
          ...agents.map((a) =>
            el(
              'section',
              { class: 'card', 'data-agent': a.agent, 'aria-label': `agent ${a.agent}` },
              el('h3', {}, 'Agent ', code(a.agent)),
              a.collections.length === 0 ? el('p', { class: 'note' }, 'No collection declared.') : '',
              a.collections.map((c) =>
                el(
                  'div',
                  { class: 'collection', 'data-collection': c.name },
                  el(
                    'h4',
                    {},
                    `${c.name} · ${c.total} record${c.total === 1 ? '' : 's'}`,
                    c.total > c.records.length ? ` (newest ${c.records.length} shown)` : '',
                  ),
                  c.records.length === 0
                    ? el('p', { class: 'note' }, 'No records.')
                    : table(
                        ['id', 'created', 'updated'],
                        c.records.map((r) =>
                          el('tr', { 'data-id': r.id }, el('td', {}, code(r.id)), el('td', {}, timeEl(r.createdAt)), el('td', {}, timeEl(r.updatedAt))),
                        ),
                      ),
                ),
              ),
            ),
          ),
        );
        stamp.textContent = `Read at ${new Date().toISOString()}.`;
      } catch (error) {
        body.replaceChildren(failure(error));
        return false;
      }
      return true;
    };
    if (await load()) refreshEvery(load, p);
  },
});
