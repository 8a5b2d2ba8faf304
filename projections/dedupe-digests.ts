import type { Sealer } from '../domain/ports/sealer.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import { fused, type Fragment } from './fragments.ts';
import type { Applicable, Projection } from './projection.ts';

const keyOf = (d: { tenant: string; plugin: string; scope: string; key: string }) => [d.tenant, d.plugin, d.scope, d.key] as const;

/**
 * A record's row depends only on its last event, so a batch keeps each record's last event,
 * opens those digests, and writes with one statement (a DELETE and an upsert, as fragments).
 */
const fragmentsOf = async (sealer: Sealer, items: readonly Applicable[]): Promise<readonly Fragment[]> => {
  const last = new Map<string, Applicable>();
  for (const a of items) {
    if (a.event.type !== 'RecordVersionWritten' && a.event.type !== 'RecordRemoved') continue;
    const id = JSON.stringify(keyOf(a.event.data));
    last.delete(id);
    last.set(id, a);
  }
  await sealer.prefetch?.(
    [...last.values()].flatMap(({ event }) => (event.type === 'RecordVersionWritten' && event.data.dedupe !== null ? [event.data.dedupe] : [])),
  );
  const gone: (readonly string[])[] = [];
  const kept: { where: readonly string[]; version: number; digest: string }[] = [];
  for (const { event } of last.values()) {
    if (event.type === 'RecordRemoved') {
      gone.push(keyOf(event.data));
      continue;
    }
    if (event.type !== 'RecordVersionWritten') continue;
    const d = event.data;
    const digest = d.dedupe === null ? null : await sealer.open({ ...d, data_subject: d.data_subject }, 'dedupe', d.dedupe);
    if (digest === null) gone.push(keyOf(d));
    else kept.push({ where: keyOf(d), version: d.version, digest });
  }
  const column = (rows: readonly (readonly string[])[], i: number) => rows.map((r) => r[i]!);
  if (gone.length === 0 && kept.length === 0) return [];
  const where = kept.map((k) => k.where);
  // The removals and the upserts touch different records (each record's last event only), so one statement holds both.
  return [
    {
      text: `DELETE FROM rm_dedupe_digests r USING unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS d(tenant, plugin, scope, key)
       WHERE r.tenant = d.tenant AND r.plugin = d.plugin AND r.scope = d.scope AND r.key = d.key`,
      params: [0, 1, 2, 3].map((i) => column(gone, i)),
    },
    {
      text: `INSERT INTO rm_dedupe_digests (tenant, plugin, scope, key, version, digest)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[])
       ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET version = EXCLUDED.version, digest = EXCLUDED.digest`,
      params: [...[0, 1, 2, 3].map((i) => column(where, i)), kept.map((k) => k.version), kept.map((k) => k.digest)],
    },
  ];
};

const applyLast = async (sealer: Sealer, sql: Sql, items: readonly Applicable[]) => {
  const fragments = await fragmentsOf(sealer, items);
  if (fragments.length === 0) return;
  const { text, params } = fused(fragments);
  await sql.query(text, params);
};

/**
 * The dedupe digest of each record's newest version. The log holds digests sealed (so a
 * shredded key takes them along); this table holds the keyed digest, never the text.
 */
export const dedupeDigestsProjection = (sealer: Sealer): Projection => ({
  name: 'dedupe-digests',
  order: 'stream',
  canHandle: ['RecordVersionWritten', 'RecordRemoved'],
  // A list's dedupe filter answers from it right after a put.
  inline: true,
  tables: ['rm_dedupe_digests'],
  apply: (sql, event, recorded) => applyLast(sealer, sql, [{ event, recorded }]),
  applyBatch: (sql, items) => applyLast(sealer, sql, items),
  fragments: (items) => fragmentsOf(sealer, items),
});
