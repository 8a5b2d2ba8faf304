import { versionsBatch } from './versions-batch.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import type { Sealer } from '../domain/ports/sealer.ts';
import type { Sealed } from '../domain/records/events.ts';
import { DEFAULT_LIST_LIMIT } from '../domain/records/rules.ts';
import { mayShowVersion } from '../domain/records/reads.ts';
import { MEMORY_TAINT, agentMayUse, crossesWall, mayRead } from '../domain/records/visibility.ts';
import { nextPutRefusal, type WritableRecord } from '../domain/records/write-rules.ts';
import type { CallContext } from './call-context.ts';

/** One record version as the records API shows it (SPEC §4 "What a returned record shows"). */
export interface RecordView {
  scope: string;
  key: string;
  version: number;
  body: unknown;
  kind: string;
  state: string;
  supersedes: string | null;
  ends_at: number;
  subject_kind: 'work' | 'person';
  purpose: string;
  closed: boolean;
  labels: string[];
  created_ms: number;
  writable: boolean;
}

interface VersionRow {
  plugin: string;
  scope: string;
  key: string;
  version: number;
  body: Sealed;
  kind: string;
  state: string;
  supersedes: string | null;
  ends_at: number;
  subject_kind: 'work' | 'person';
  closed: boolean;
  purpose: string;
  labels: string[];
  created_ms: number;
  writer_plugin: string;
  writer_tainted: boolean;
  data_subject: string | null;
  /**
   * Whether the body's data key is still in the keystore: a key shredded by another instance may
   * still sit in this one's memory, and an erased body is never shown from there.
   */
  key_live: boolean;
  /** The record's newest version's purpose and kind: what a put of its next version is checked against. */
  record_purpose: string;
  record_subject_kind: 'work' | 'person';
}

/** What a read showed: the versions to audit and the labels to join into the job. */
export interface Shown {
  readonly records: { scope: string; key: string; version: number }[];
  readonly labels: string[];
  readonly withheld: number;
}

export interface ListOptions {
  scopes?: string[] | undefined;
  kinds?: string[] | undefined;
  states?: string[] | undefined;
  prefix?: string | undefined;
  since?: number | undefined;
  ended?: boolean | undefined;
  deleted?: boolean | undefined;
  after?: string | undefined;
  limit?: number | undefined;
  order?: 'key' | 'created' | '-created' | undefined;
  cursor?: string | undefined;
  dedupe?: string | undefined;
  newest_in?: boolean | undefined;
}

const COLUMNS = `v.plugin, v.scope, v.key, v.version, v.body, v.kind, v.state, v.supersedes, v.ends_at::float8 AS ends_at,
  v.subject_kind, v.closed, v.purpose, v.labels, v.created_ms::float8 AS created_ms, v.writer_plugin, v.writer_tainted, v.data_subject,
  EXISTS (SELECT 1 FROM custodian_data_keys dk WHERE dk.key_id = CASE
    WHEN v.body->>'k' ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' THEN (v.body->>'k')::uuid END) AS key_live`;

/** The SQL twin of `mayRead`: purposes and agent scopes, so hidden records are never counted as withheld. */
const visibilitySql = (ctx: CallContext, params: unknown[], alias = 'r') => {
  params.push(`agent:${ctx.agent}`);
  const agent = `(${alias}.scope NOT LIKE 'agent:%' OR ${alias}.scope = $${params.length})`;
  if (ctx.purpose === '') return `${agent} AND ${alias}.purpose = ''`;
  params.push(ctx.purpose, ctx.settings.compatible_purposes[ctx.purpose] ?? []);
  const p = params.length - 1;
  return `${agent} AND (${alias}.purpose = $${p} OR ${alias}.purpose = ANY($${p + 1}::text[]) OR (${alias}.purpose = '' AND ${alias}.subject_kind = 'work'))`;
};

export const encodeCursor = (c: unknown) => Buffer.from(JSON.stringify(c)).toString('base64url');
const decodeCursor = (s: string): { o: string; c?: number; s: string; k: string } | null => {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    return typeof c === 'object' && c !== null && typeof c.s === 'string' && typeof c.k === 'string' ? c : null;
  } catch {
    return null;
  }
};

export const recordQueries = (deps: { db: Sql; sealer: Sealer; now: () => number }) => {
  const { db, sealer, now } = deps;
  // Concurrent gets share one statement (queries/versions-batch.ts).
  const batched = versionsBatch(db, `${COLUMNS}, first_value(v.purpose) OVER w AS record_purpose, first_value(v.subject_kind) OVER w AS record_subject_kind`);

  /** Opens a row into its view, or null when its key was shredded (erased data stays gone). */
  const view = async (ctx: CallContext, row: VersionRow): Promise<RecordView | null> => {
    if (!row.key_live) return null;
    const text = await sealer.open(
      { tenant: ctx.tenant, plugin: row.plugin, scope: row.scope, key: row.key, version: row.version, data_subject: row.data_subject },
      'body',
      row.body,
    );
    if (text === null) return null;
    const record: WritableRecord = { scope: row.scope, purpose: row.record_purpose, subject_kind: row.record_subject_kind };
    return {
      scope: row.scope,
      key: row.key,
      version: row.version,
      body: JSON.parse(text),
      kind: row.kind,
      state: row.state,
      supersedes: row.supersedes,
      ends_at: row.ends_at,
      subject_kind: row.subject_kind,
      purpose: row.purpose,
      closed: row.closed,
      labels: row.labels,
      created_ms: row.created_ms,
      // The same rules the put decider applies (checks 4, 7, 8, 9), and the job not fenced.
      writable:
        nextPutRefusal(
          ctx.settings,
          ctx.plugin_scopes,
          { agent: ctx.agent, plugin: ctx.agent_plugin, purpose: ctx.purpose, data_subject: ctx.data_subject },
          record,
        ) === null &&
        ctx.status === 'running' &&
        ctx.expires_ms > now(),
    };
  };

  const taints = (ctx: CallContext, row: VersionRow) => row.writer_tainted || row.writer_plugin !== ctx.agent_plugin;

  /**
   * Walks rows in order, withholding those across a label wall from the job or from what this
   * answer already showed, until `limit` are shown. Answers the views and what to audit.
   */
  const admit = async (ctx: CallContext, rows: VersionRow[], limit = Infinity) => {
    const held = new Set(ctx.labels);
    const views: RecordView[] = [];
    const joined = new Set<string>();
    let withheld = 0;
    let examined = 0;
    for (const row of rows) {
      if (views.length >= limit) break;
      examined++;
      if (crossesWall(ctx.settings.label_walls, held, row.labels)) {
        withheld++;
        continue;
      }
      const v = await view(ctx, row);
      if (!v) continue;
      views.push(v);
      for (const l of row.labels) {
        held.add(l);
        joined.add(l);
      }
      if (taints(ctx, row)) joined.add(MEMORY_TAINT);
    }
    const shown: Shown = { records: views.map((v) => ({ scope: v.scope, key: v.key, version: v.version })), labels: [...joined].sort(), withheld };
    return { views, shown, examined };
  };

  const readable = (ctx: CallContext, row: VersionRow) => mayRead(ctx, row, ctx.settings) && agentMayUse(ctx, row.scope);

  /** Every version of a record, newest first, each knowing the newest version's purpose and kind. */
  const versionsOf = (ctx: CallContext, scope: string, key: string) => batched<VersionRow>({ tenant: ctx.tenant, plugin: ctx.plugin, scope, key });

  /** The versions of a record this read may show (SPEC §4 start-up reads, §7 person ends), newest first. */
  const showable = async (ctx: CallContext, scope: string, key: string) => {
    const rows = await versionsOf(ctx, scope, key);
    const newest = rows[0];
    if (!newest || !readable(ctx, newest)) return [];
    const t = now();
    return rows.filter((r) => mayShowVersion(r, newest, ctx.startup, t));
  };

  const nothing = (): Shown => ({ records: [], labels: [], withheld: 0 });

  return {
    async get(ctx: CallContext, scope: string, key: string, version: number) {
      const rows = await showable(ctx, scope, key);
      const row = version === 0 ? rows[0] : rows.find((r) => r.version === version);
      if (!row) return { answer: {}, shown: nothing() };
      const { views, shown } = await admit(ctx, [row]);
      return { answer: views[0] ? { record: views[0] } : {}, shown };
    },

    async history(ctx: CallContext, scope: string, key: string) {
      const rows = await showable(ctx, scope, key);
      if (rows.length === 0) return { answer: { records: [] }, shown: nothing() };
      const { views, shown } = await admit(ctx, rows);
      return { answer: { records: views }, shown };
    },

    async list(ctx: CallContext, o: ListOptions) {
      const limit = o.limit ?? DEFAULT_LIST_LIMIT;
      const order = o.order ?? 'key';
      const t = now();
      const params: unknown[] = [ctx.tenant, ctx.plugin];
      const where: string[] = ['r.tenant = $1', 'r.plugin = $2', visibilitySql(ctx, params)];
      const add = (clause: (p: string) => string, value: unknown) => {
        params.push(value);
        where.push(clause(`$${params.length}`));
      };
      if (o.scopes) add((p) => `r.scope = ANY(${p}::text[])`, o.scopes);
      // A start-up call never sees ended, closed or deleted records, whatever it asks.
      const deleted = o.deleted === true && !ctx.startup;
      const ended = o.ended === true && !ctx.startup;
      if (!deleted) where.push(`r.state <> 'deleted'`);
      if (!ended || o.newest_in) add((p) => `NOT r.closed AND r.ends_at > ${p}`, t);
      // The SQL twin of `personRecordGone`: a person record is deleted at its end, `ended` or not.
      add((p) => `NOT (r.subject_kind = 'person' AND r.ends_at <= ${p})`, t);
      if (o.prefix !== undefined) add((p) => `starts_with(r.key, ${p})`, o.prefix);
      if (o.since !== undefined) add((p) => `r.created_ms >= ${p}`, o.since);
      if (o.after !== undefined) add((p) => `r.key > ${p}`, o.after);
      if (o.dedupe !== undefined)
        add(
          (p) =>
            `EXISTS (SELECT 1 FROM rm_dedupe_digests d WHERE d.tenant = r.tenant AND d.plugin = r.plugin AND d.scope = r.scope AND d.key = r.key AND d.digest = ${p})`,
          sealer.dedupeDigest(ctx.tenant, o.dedupe),
        );
      if (o.states && !o.newest_in) add((p) => `r.state = ANY(${p}::text[])`, o.states);
      let versionFilter = 'v.version = r.version';
      if (o.newest_in && o.states) {
        params.push(o.states);
        versionFilter = `v.state = ANY($${params.length}::text[])`;
        // The SQL twin of `mayShowVersion` for start-up tickets: only a live version may be picked.
        if (ctx.startup) {
          params.push(t);
          versionFilter += ` AND v.state <> 'deleted' AND NOT v.closed AND v.ends_at > $${params.length}`;
        }
      }
      if (o.kinds) add((p) => `v.kind = ANY(${p}::text[])`, o.kinds);

      const sortKey = order === 'key' ? ['r.scope', 'r.key'] : ['r.created_ms', 'r.scope', 'r.key'];
      const dir = order === '-created' ? 'DESC' : 'ASC';
      const cursor = o.cursor === undefined ? null : decodeCursor(o.cursor);
      if (cursor) {
        const values = order === 'key' ? [cursor.s, cursor.k] : [cursor.c ?? 0, cursor.s, cursor.k];
        const first = params.length + 1;
        params.push(...values);
        const tuple = values.map((_, i) => `$${first + i}`).join(', ');
        where.push(`(${sortKey.join(', ')}) ${dir === 'ASC' ? '>' : '<'} (${tuple})`);
      }
      // Enough rows that walls rarely cut a page short; withheld rows still move the cursor.
      const batch = Math.max(limit + 1, 2 * limit + 100);
      const orderBy = sortKey.map((k) => `${k} ${dir}`).join(', ');
      // A parameter, not a literal: each text is a statement prepared on every connection (adapters/postgres/prepared.ts).
      params.push(batch);
      const sql = `SELECT ${COLUMNS}, r.purpose AS record_purpose, r.subject_kind AS record_subject_kind FROM rm_records r
        JOIN LATERAL (SELECT * FROM rm_record_versions v WHERE v.tenant = r.tenant AND v.plugin = r.plugin AND v.scope = r.scope AND v.key = r.key AND ${versionFilter}
                      ORDER BY v.version DESC LIMIT 1) v ON true
        WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT $${params.length}`;
      const { rows } = await db.query<VersionRow>(sql, params);
      const { views, shown, examined } = await admit(ctx, rows, limit);
      const last = rows[examined - 1];
      // A full batch may have more behind it even when walls withheld part of it.
      const more = examined < rows.length || rows.length === batch;
      // `next` only when another page follows: a cursor past the last page would read as one more.
      const next = more ? { next: last ? encodeCursor({ o: order, c: last.created_ms, s: last.scope, k: last.key }) : (o.cursor ?? '') } : {};
      return { answer: { records: views, withheld: shown.withheld, ...next, more }, shown };
    },
  };
};

export type RecordQueries = ReturnType<typeof recordQueries>;
