// Receipts where they belong: revocation batches with their receipts, holds and erasures.
// Each receipt's signature and each entry's inclusion are checked in this browser
// (verify.js), and each row links to its entry in the timeline.
import { auditKey, checkLine, entryLink, readLog } from './audit-log.js';
import { badge, code, el, table, timeEl } from './dom.js';
import { receiptSigned, receiptTextSigned } from './verify.js';

const parse = (line) => {
  try {
    return JSON.parse(line);
  } catch {
    return {};
  }
};
const entryAnchor = (seq, label = `entry #${seq}`) => (Number.isSafeInteger(seq) ? el('a', { href: entryLink(seq), class: 'entry-link' }, label) : '');
const proofCell = () => el('td', { class: 'proof' }, badge(null, 'checking'));
const setProof = (row, result) => {
  row
    .querySelector('.proof')
    .replaceChildren(badge(result.ok, result.ok ? 'in the signed log' : 'NOT in the signed log'), result.ok ? '' : el('div', { class: 'note' }, result.reason));
  row.dataset.state = result.ok ? 'verified' : 'failed';
  if (!result.ok) row.classList.add('failed');
};
const signatureBadge = async (receipt) => {
  if (!receipt || typeof receipt !== 'object') return badge(false, 'no receipt');
  const ok = await receiptSigned(await auditKey(), receipt);
  return badge(ok, ok ? 'receipt signature verified' : 'receipt signature NOT verified');
};
const receiptText = (receipt) =>
  el('details', { class: 'receipt-json' }, el('summary', {}, 'the receipt'), el('pre', { class: 'json' }, JSON.stringify(receipt, null, 2)));

export const receiptPages = (page, failure) => ({
  async revocations(s) {
    const p = page(
      'Revocation batches and receipts',
      el('p', { class: 'note' }, 'Each receipt’s signature and each entry’s place in the signed log are checked in this browser.'),
    );
    try {
      const [batches, receipts] = await Promise.all([readLog(s.tenant, { kind: 'revocation' }), readLog(s.tenant, { kind: 'revocation_receipt' })]);
      const byEpoch = new Map(receipts.lines.map((l) => [parse(l).epoch, l]));
      const rows = [];
      for (const line of batches.lines) {
        const b = parse(line);
        const receiptLine = byEpoch.get(b.epoch);
        const r = receiptLine ? parse(receiptLine) : null;
        const row = el(
          'tr',
          { 'data-epoch': b.epoch, 'data-seq': b.seq },
          el('td', {}, String(b.epoch)),
          el('td', {}, timeEl(b.at)),
          el('td', { class: 'detail' }, JSON.stringify(b.revocations ?? b.items)),
          el('td', { class: 'detail' }, r ? JSON.stringify(r.stopped ?? []) : ''),
          el('td', { class: 'signature' }, await signatureBadge(r?.receipt), r?.receipt ? receiptText(r.receipt) : ''),
          el('td', {}, entryAnchor(b.seq, `batch #${b.seq}`), r ? [' · ', entryAnchor(r.seq, `receipt #${r.seq}`)] : ''),
          proofCell(),
        );
        rows.push(row);
        setProof(row, receiptLine ? await checkLine(s.tenant, receiptLine, receipts) : { ok: false, reason: 'no receipt entry' });
      }
      p.append(
        rows.length
          ? table(['epoch', 'at', 'revocations', 'jobs stopped', 'receipt', 'log entries', 'receipt entry'], rows, 'Revocation batches')
          : el('p', { role: 'status' }, 'No revocation batch yet.'),
      );
    } catch (error) {
      p.append(failure(error));
    }
  },

  async compliance(s) {
    const p = page(
      'Holds, erasures and their receipts',
      el(
        'p',
        { class: 'note' },
        'A hold is proven by its log entry (no receipt is issued for one); an erasure also carries a signed receipt. Both are checked in this browser.',
      ),
    );
    try {
      const sections = [
        ['Holds placed', 'hold_placed', ['hold', 'reason', 'selector'], (e) => [code(e.hold), e.reason, JSON.stringify(e.selector)]],
        ['Holds released', 'hold_released', ['hold'], (e) => [code(e.hold)]],
        ['Erasures requested', 'erasure_requested', ['data subject'], (e) => [code(e.subject)]],
        ['Erasures', 'erasure', ['data subject', 'records erased'], (e) => [code(e.subject), String(e.records_erased)]],
      ];
      const logs = await Promise.all(sections.map(([, kind]) => readLog(s.tenant, { kind })));
      for (const [i, [title, kind, headers, cells]] of sections.entries()) {
        const log = logs[i];
        const rows = [];
        for (const line of log.lines) {
          const e = parse(line);
          const receipt = e.receipt && typeof e.receipt === 'object' ? e.receipt : null;
          const row = el(
            'tr',
            { 'data-kind': kind, 'data-seq': e.seq },
            el('td', {}, timeEl(e.at)),
            cells(e).map((c) => el('td', { class: 'detail' }, c)),
            el(
              'td',
              { class: 'signature' },
              kind === 'erasure' ? [await signatureBadge(receipt), receipt ? receiptText(receipt) : ''] : el('span', { class: 'note' }, 'its log entry'),
            ),
            el('td', {}, entryAnchor(e.seq)),
            proofCell(),
          );
          rows.push(row);
          setProof(row, await checkLine(s.tenant, line, log));
        }
        p.append(
          el('h3', {}, title),
          rows.length ? table(['at', ...headers, 'receipt', 'log entry', 'in the signed log'], rows) : el('p', { class: 'note' }, 'None.'),
        );
      }
    } catch (error) {
      p.append(failure(error));
    }
  },

  async receipt() {
    const input = el('textarea', { id: 'receipt-input', spellcheck: 'false', placeholder: '{"epoch": …, "signature": "…"}' });
    const result = el('div', { id: 'receipt-result', 'data-state': 'empty', role: 'status' });
    const form = el(
      'form',
      { class: 'card', id: 'receipt-form' },
      el('label', {}, 'A receipt, as JSON (revocation or erasure)', input),
      el('button', { type: 'submit' }, 'Check'),
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      // Until this receipt's answer, the result shows no earlier receipt's.
      result.replaceChildren('Checking…');
      result.dataset.state = 'checking';
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
});
