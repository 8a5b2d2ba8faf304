import * as E from 'fp-ts/lib/Either.js';
import { readableHead } from './readable-head.ts';
import { eventRegistry } from '../domain/events/registry.ts';
import { assertUntampered, type EventStore } from '../domain/ports/event-store.ts';
import type { Sealer } from '../domain/ports/sealer.ts';
import type { RecordVersionWrittenData } from '../domain/records/events.ts';
import { canonicalJson, sha256Hex } from '../domain/shared/hash.ts';
import { personRecordGone } from '../domain/records/reads.ts';
import type { RecordView } from './records.ts';

/** An export line: a record version as reads show it, with its plugin, without `writable`. */
export type ExportLine = Omit<RecordView, 'writable'> & { plugin: string };

export interface Export {
  readonly text: string;
  readonly position: number;
  readonly records: number;
  readonly versions: number;
  readonly sha256: string;
}

const sortKey = (l: { plugin: string; scope: string; key: string }) => [l.plugin, l.scope, l.key] as const;
const compare = (a: readonly string[], b: readonly string[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
};

/**
 * SPEC §8: a tenant's records rebuilt from the event log — never from read models — up to a
 * log position. Lines are canonical JSON ordered by (plugin, scope, key, version); versions
 * whose keys were shredded and removed records are absent; the last line is the manifest.
 * The same position gives the same bytes, unless keys were shredded in between.
 */
const PAGE = 10_000;
/** Versions opened per round: their keys come in one prefetch, well inside the key cache. */
const OPEN_CHUNK = 2_000;

/**
 * SPEC §8: a tenant's records rebuilt from the event log — never from read models — up to a
 * log position. Lines are canonical JSON ordered by (plugin, scope, key, version); versions
 * whose keys were shredded and removed records are absent; the last line is the manifest.
 * The same position gives the same bytes, unless keys were shredded in between.
 *
 * The log is read in big pages (the next one is fetched while this one is sorted out), and
 * bodies are opened in chunks whose keys the sealer loads at once when it can.
 */
export const exportTenant = async (
  store: EventStore,
  sealer: Sealer,
  tenant: string,
  opts: { position?: number; versions?: boolean; now?: number },
): Promise<Export> => {
  // Built up to a position every event below which can be read (SPEC §8: the manifest names it).
  const readable = await readableHead(store, opts.position);
  const position = opts.position ?? readable;
  const prefix = `records:${tenant}:`;
  const records = new Map<string, RecordVersionWrittenData[]>();
  let next = position > 0 ? store.readAll(0, { limit: PAGE }) : null;
  while (next) {
    const batch = await next;
    next = null;
    if (batch.length === 0) break;
    const last = batch.at(-1)!.position;
    if (last < position) next = store.readAll(last, { limit: PAGE });
    for (const r of batch) {
      if (r.position > position) break;
      if (!r.stream.startsWith(prefix)) continue;
      // An export is built from the log only as far as the log verifies.
      assertUntampered(r);
      const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
      if (E.isLeft(decoded)) throw new Error(`export: ${decoded.left}`);
      const e = decoded.right;
      if (e.type === 'RecordVersionWritten') {
        const id = JSON.stringify(sortKey(e.data));
        const versions = records.get(id);
        if (versions) versions.push(e.data);
        else records.set(id, [e.data]);
      } else if (e.type === 'RecordRemoved') {
        records.delete(JSON.stringify(sortKey(e.data)));
      }
    }
  }

  const all = [...records.values()].sort((a, b) => compare(sortKey(a[0]!), sortKey(b[0]!)));
  const lines: string[] = [];
  let recordCount = 0;
  // A person record is deleted at its end (SPEC §7), before retention removes it: from that
  // instant of the service clock the export omits it, as it omits a shredded one (§8).
  const sorted = all.filter((versions) => opts.now === undefined || !personRecordGone(versions.at(-1)!, opts.now));
  for (let i = 0; i < sorted.length;) {
    // A round of whole records, about OPEN_CHUNK versions: their keys first, then each body.
    const round: (readonly RecordVersionWrittenData[])[] = [];
    for (let n = 0; i < sorted.length && n < OPEN_CHUNK; i++) {
      const chosen = opts.versions ? sorted[i]! : sorted[i]!.slice(-1);
      round.push(chosen);
      n += chosen.length;
    }
    await sealer.prefetch?.(round.flatMap((vs) => vs.map((v) => v.body)));
    for (const chosen of round) {
      let shown = 0;
      for (const v of chosen) {
        const text = await sealer.open(v, 'body', v.body);
        if (text === null) continue;
        const line: ExportLine = {
          plugin: v.plugin,
          scope: v.scope,
          key: v.key,
          version: v.version,
          body: JSON.parse(text),
          kind: v.kind,
          state: v.state,
          supersedes: v.supersedes,
          ends_at: v.ends_at,
          subject_kind: v.subject_kind,
          purpose: v.purpose,
          closed: v.closed,
          labels: v.labels,
          created_ms: v.created_ms,
        };
        lines.push(canonicalJson(line));
        shown++;
      }
      if (shown > 0) recordCount++;
    }
  }
  const body = lines.map((l) => `${l}\n`).join('');
  const sha256 = sha256Hex(body);
  const manifest = canonicalJson({ manifest: { tenant, position, records: recordCount, versions: lines.length, sha256 } });
  return { text: `${body}${manifest}\n`, position, records: recordCount, versions: lines.length, sha256 };
};
