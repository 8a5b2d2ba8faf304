import type { DomainEvent } from '../events/registry.ts';
import { canonicalJson } from '../shared/hash.ts';
import { auditFields, recordRefs, type AuditFields, type JobFacts } from './entries.ts';
import { MAX_BUNDLED_ENTRY } from './tiles.ts';

/**
 * An audit line as its event's commit writes it: everything but its place (`seq`, given by
 * the log's per-tenant counter in the commit's transaction) and its time (`at`, the event's
 * recorded time). The stored text is `head + at + mid + seq + tail`: exactly the RFC 8785
 * canonical JSON of `{seq, at, ...fields}` (see `lineText`), the bytes hashed as its leaf.
 */
export interface AuditLine {
  /** The event of its unit it records (0-based). */
  readonly event: number;
  readonly tenant: string;
  readonly kind: string;
  readonly job: string | null;
  readonly subject: string | null;
  readonly epoch: number | null;
  /** The `record` filter's values (`recordRefs`). */
  readonly record_refs: readonly string[];
  readonly head: string;
  readonly mid: string;
  readonly tail: string;
}

/**
 * The canonical JSON of `{seq, at, ...fields}` cut around the values of `at` and `seq`. RFC
 * 8785 orders an object's keys by UTF-16 code units and writes each `"key":value` once; `at`
 * sorts before `seq`, and both are top-level keys here, so the text splits there exactly.
 */
export const lineTemplate = (fields: AuditFields): Pick<AuditLine, 'head' | 'mid' | 'tail'> => {
  const keys = [...Object.keys(fields).filter((k) => k !== 'at' && k !== 'seq' && fields[k] !== undefined), 'at', 'seq'].sort();
  const parts: string[] = [];
  let text = '{';
  keys.forEach((key, i) => {
    text += `${i > 0 ? ',' : ''}${JSON.stringify(key)}:`;
    if (key === 'at' || key === 'seq') {
      parts.push(text);
      text = '';
    } else text += canonicalJson(fields[key]);
  });
  return { head: parts[0]!, mid: parts[1]!, tail: `${text}}` };
};

/** The stored line: what the commit assembles from a template, its time and its place. */
export const lineText = (line: Pick<AuditLine, 'head' | 'mid' | 'tail'>, at: number, seq: number): string => `${line.head}${at}${line.mid}${seq}${line.tail}`;

/**
 * The most bytes a line's template may hold: a line is served in an entry bundle, where its
 * length is a uint16 (at most 65,535 bytes), and `at` and `seq` add at most 16 digits each.
 */
export const MAX_TEMPLATE_BYTES = MAX_BUNDLED_ENTRY - 32;
/** The lists an entry may name without bound (a history of many versions, an agent's export): split across lines. */
const SPLITTABLE = ['records', 'agent_records'] as const;
const templateBytes = (t: Pick<AuditLine, 'head' | 'mid' | 'tail'>) => Buffer.byteLength(t.head) + Buffer.byteLength(t.mid) + Buffer.byteLength(t.tail);

/**
 * An entry as the lines that log it: itself, or — when its line would not fit an entry bundle —
 * one line per run of its list (`records`, `agent_records`) that fits, each with every other
 * field, `part` (1-based) and `parts`. Nothing is dropped: together the parts name every item,
 * in order, and an entry that fits is logged exactly as before.
 */
export const entryParts = (fields: AuditFields): AuditFields[] => {
  const list = SPLITTABLE.find((k) => Array.isArray(fields[k]) && (fields[k] as unknown[]).length > 1);
  if (list === undefined || templateBytes(lineTemplate(fields)) <= MAX_TEMPLATE_BYTES) return [fields];
  const items = fields[list] as readonly unknown[];
  // Room taken by everything but the list's items (part and parts at their widest).
  const base = templateBytes(lineTemplate({ ...fields, [list]: [], part: items.length, parts: items.length }));
  const runs: unknown[][] = [];
  let run: unknown[] = [];
  let size = base;
  for (const item of items) {
    const bytes = Buffer.byteLength(canonicalJson(item)) + 1;
    if (run.length > 0 && size + bytes > MAX_TEMPLATE_BYTES) {
      runs.push(run);
      run = [];
      size = base;
    }
    run.push(item);
    size += bytes;
  }
  runs.push(run);
  return runs.map((items, i) => ({ ...fields, [list]: items, part: i + 1, parts: runs.length }));
};

/** What a unit's lines need beyond its events: facts the command that made them knows. */
export interface LineFacts {
  /** The run of the job an event names (recorded by its `JobStarted`), or null when unknown. */
  readonly job: (tenant: string, job: string, run: number) => JobFacts | null;
  /** The newest version of a record as the decision read it, before the unit (null: none). */
  readonly newest: (tenant: string, plugin: string, scope: string, key: string) => number | null;
}

const tenantOf = (e: DomainEvent) => (e.data as { tenant?: string }).tenant;
/** A record's key in a unit's `newest` versions (its stream is one tenant's). */
export const recordRef = (plugin: string, scope: string, key: string) => `${plugin}\u0000${scope}\u0000${key}`;

/**
 * The audit lines of one unit's events, in order (an entry too long for an entry bundle as
 * several lines: `entryParts`). Versions written or removed by earlier
 * events of the unit are folded in as they go (a key written again after its removal starts
 * again at 1), so each line reads as it would after the events before it.
 */
export const auditLines = (events: readonly DomainEvent[], facts: LineFacts): AuditLine[] => {
  const lines: AuditLine[] = [];
  const touched = new Map<string, number | null>();
  const started = new Map<string, JobFacts>();
  events.forEach((event, i) => {
    const tenant = tenantOf(event);
    if (tenant === undefined) return;
    if (event.type === 'JobStarted') {
      const d = event.data;
      const ref = `${d.job}\u0000${d.run}`;
      if (!started.has(ref)) started.set(ref, facts.job(tenant, d.job, d.run) ?? { agent: d.agent, purpose: d.purpose, subject: d.subject });
    }
    const newest = (plugin: string, scope: string, key: string) => {
      const ref = recordRef(plugin, scope, key);
      return touched.has(ref) ? touched.get(ref)! : facts.newest(tenant, plugin, scope, key);
    };
    const fields = auditFields(event, (job, run) => started.get(`${job}\u0000${run}`) ?? facts.job(tenant, job, run), newest);
    if (event.type === 'RecordVersionWritten' || event.type === 'RecordRemoved') {
      const { plugin, scope, key } = event.data;
      touched.set(recordRef(plugin, scope, key), event.type === 'RecordRemoved' ? null : Math.max(event.data.version, newest(plugin, scope, key) ?? 0));
    }
    if (!fields) return;
    for (const part of entryParts(fields))
      lines.push({
        event: i,
        tenant,
        kind: part.kind,
        job: part.job ?? null,
        subject: part.subject ?? null,
        epoch: part.epoch ?? null,
        record_refs: recordRefs(part.records),
        ...lineTemplate(part),
      });
  });
  return lines;
};

/** The job runs these events' lines name (a `JobStarted` names its own): the facts a unit's lines look up. */
export const namedRuns = (events: readonly DomainEvent[]): { tenant: string; job: string; run: number }[] =>
  events.flatMap((e) => {
    const d = e.data as { tenant?: string; job?: string; run?: number; writer?: { job: string; run: number } };
    if (d.tenant === undefined || e.type === 'JobStarted') return [];
    return [
      ...(d.job !== undefined && d.run !== undefined ? [{ tenant: d.tenant, job: d.job, run: d.run }] : []),
      ...(d.writer ? [{ tenant: d.tenant, ...d.writer }] : []),
    ];
  });
