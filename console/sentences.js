// Each audit entry as a sentence a person reads: who did what, to which record and version,
// for which purpose. Parts are strings or nodes; the page puts them in as text.
import { code, digest, el } from './dom.js';

const list = (items, max = 4) => {
  const shown = items.slice(0, max);
  const more = items.length > max ? ` and ${items.length - max} more` : '';
  return [...shown.flatMap((x, i) => (i === 0 ? [x] : [', ', x])), more];
};
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A record version as `scope/key v2`, a link that filters the timeline by it. */
const recordRef = (r) =>
  el(
    'a',
    { class: 'record', href: `#/audit?record=${encodeURIComponent(`${r.scope}#${r.key}`)}`, title: `every entry naming ${r.scope}#${r.key}` },
    `${r.scope}/${r.key}`,
    r.version > 0 ? ` v${r.version}` : '',
  );
const records = (e) => (Array.isArray(e.records) && e.records.length ? list(e.records.map(recordRef)) : ['no record']);
const job = (e) => (e.job ? ['job ', code(e.job), e.agent ? [' of agent ', el('strong', {}, e.agent)] : ''] : ['a caller']);
const purpose = (e) => (e.purpose ? [' for purpose ', digest(e.purpose, 'purpose')] : '');
const plugin = (e) => (e.plugin ? [' of plugin ', code(e.plugin)] : '');
const json = (v) => code(JSON.stringify(v));

const SENTENCES = {
  read: (e) => [
    ...job(e),
    ' read ',
    ...records(e),
    plugin(e),
    e.op ? ` (${e.op})` : '',
    purpose(e),
    Array.isArray(e.withheld) && e.withheld.length ? `; ${plural(e.withheld.length, 'record')} withheld` : '',
  ],
  startup_read: (e) => [...job(e), ' read at start-up ', ...records(e), plugin(e), purpose(e)],
  write: (e) => [...job(e), ' wrote ', ...records(e), plugin(e), e.state ? ` (${e.state}${e.closed ? ', closed' : ''})` : '', purpose(e)],
  job_started: (e) => [
    'Job ',
    code(e.job),
    ' started: agent ',
    el('strong', {}, e.agent ?? '?'),
    plugin(e),
    e.subject ? [' for ', code(e.subject)] : '',
    purpose(e),
    e.parent ? [', child of ', code(e.parent)] : '',
  ],
  job_ended: (e) => [...job(e), ' ended'],
  job_stopped: (e) => [...job(e), ' was stopped', e.epoch !== undefined ? ` by revocation epoch ${e.epoch}` : '', e.reasons ? [': ', json(e.reasons)] : ''],
  envelope_block: (e) => [
    ...job(e),
    ` got authority block ${e.index ?? ''} (depth ${e.depth ?? 0}, epoch ${e.epoch ?? '?'})`,
    e.scopes ? [' over ', json(e.scopes)] : '',
    purpose(e),
  ],
  widening_refused: (e) => [
    ...job(e),
    ' was refused a wider child ',
    e.child ? code(e.child) : '',
    e.field ? ` (${e.field})` : '',
    e.reason ? `: ${e.reason}` : '',
  ],
  revocation: (e) => [
    `Revocation batch, epoch ${e.epoch}: `,
    ...list(
      (e.revocations ?? e.items ?? []).map((r) => json(r)),
      3,
    ),
  ],
  revocation_receipt: (e) => [
    `Receipt signed for revocation epoch ${e.epoch}: ${plural((e.stopped ?? []).length, 'job')} stopped`,
    (e.indeterminate ?? []).length ? `, ${(e.indeterminate ?? []).length} indeterminate` : '',
  ],
  hold_placed: (e) => ['Hold ', code(e.hold), ' placed on ', json(e.selector), e.reason ? [': ', el('q', {}, e.reason)] : ''],
  hold_released: (e) => ['Hold ', code(e.hold), ' released'],
  erasure_requested: (e) => ['Erasure of data subject ', code(e.subject), ' requested'],
  erasure: (e) => ['Data subject ', code(e.subject), ` erased: ${plural(e.records_erased ?? 0, 'record')}; receipt signed`],
  erasure_deferred: (e) => [
    'Erasure of data subject ',
    code(e.subject),
    ` deferred by a hold: ${plural(e.records_erased ?? 0, 'record')} erased, ${plural(e.deferred ?? 0, 'record')} waiting; receipt signed`,
  ],
  tenant_removed: () => ['Tenant removed: its jobs stopped and its keys shredded'],
  record_removed: (e) => ['Record ', ...records(e), plugin(e), ' removed', e.reason ? ` (${e.reason})` : ''],
  renewal_requested: (e) => ['Renewal of ', ...records(e), plugin(e), ' requested'],
  agent_read: (e) => [
    'Agent ',
    el('strong', {}, e.agent ?? '?'),
    ` ${e.op ?? 'read'} collection `,
    code(e.collection ?? '?'),
    ': ',
    Array.isArray(e.agent_records) && e.agent_records.length ? list(e.agent_records.map((id) => code(String(id)))) : 'no record',
  ],
  export: (e) => [
    `Tenant exported up to position ${e.position}: ${plural(e.records_exported ?? 0, 'record')}, ${plural(e.versions ?? 0, 'version')}, digest `,
    digest(e.sha256 ?? '', 'digest'),
  ],
  startup_text: (e) => [
    'Start-up text assembled for ',
    ...job(e),
    `: ${e.tokens ?? '?'} tokens`,
    Array.isArray(e.kept) ? `, ${plural(e.kept.length, 'plugin')} kept` : '',
  ],
  files_handed: (e) => [...job(e), ` was handed ${plural((e.files ?? []).length, 'file')} into tree `, code(e.tree ?? '?')],
  file_removed: (e) => ['File ', digest(e.file ?? '', 'file'), ' removed from tree ', code(e.tree ?? '?'), e.reason ? ` (${e.reason})` : ''],
};

/** Kinds in words, for the kind picker. */
export const KIND_NAMES = {
  read: 'records read',
  startup_read: 'start-up reads',
  write: 'records written',
  job_started: 'jobs started',
  job_ended: 'jobs ended',
  job_stopped: 'jobs stopped',
  envelope_block: 'authority blocks',
  widening_refused: 'widening refused',
  revocation: 'revocation batches',
  revocation_receipt: 'revocation receipts',
  hold_placed: 'holds placed',
  hold_released: 'holds released',
  erasure_requested: 'erasures requested',
  erasure: 'erasures',
  erasure_deferred: 'erasures deferred',
  record_removed: 'records removed',
  renewal_requested: 'renewals requested',
  agent_read: 'agent records read',
  export: 'exports',
  startup_text: 'start-up text',
  files_handed: 'files handed',
  file_removed: 'files removed',
  tenant_removed: 'tenant removed',
};

/** The sentence for an entry; an unknown kind reads as its kind and fields. */
export const sentence = (e) => {
  const make = Object.hasOwn(SENTENCES, e.kind) ? SENTENCES[e.kind] : null;
  if (!make) {
    const { seq: _s, at: _a, kind, ...rest } = e;
    return [code(String(kind)), ': ', json(rest)];
  }
  try {
    return make(e);
  } catch {
    return [code(String(e.kind)), ': ', json(e)];
  }
};
