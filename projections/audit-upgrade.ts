import { auditFields, recordRefs, type JobFacts } from '../domain/audit/entries.ts';
import { leafHash, nodeHash } from '../domain/audit/merkle.ts';
import { canonicalJson } from '../domain/shared/hash.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../domain/events/registry.ts';
import type { RecordedEvent } from '../domain/ports/event-store.ts';
import type { Applicable } from './projection.ts';

/*
 * The upgrade to stored audit lines. Before it, the audit log was a projection that derived
 * each line from its event (this file keeps that derivation, frozen, for this one use). The
 * upgrade first derives, exactly as that projection did, the lines of events committed but
 * not yet projected, then copies every line into the line store, so no signed leaf changes.
 * After it, lines are only ever written with their events.
 */

/**
 * Events the projection audited only after its second version first ran on a deployment (from
 * `rm_audit_kinds`' position on): earlier ones were never logged, and must not be now.
 */
const AUDITED_SINCE_V2: ReadonlySet<string> = new Set(['AgentKillLifted', 'AgentRecordPut', 'AgentRecordDeleted', 'AgentPersonForgotten']);

/** The events `auditFields` makes entries of (JobStarted also gives the job facts later entries name). */
const HANDLED = [
  'RecordsRead',
  'AgentRecordsRead',
  'RecordVersionWritten',
  'JobStarted',
  'JobEnded',
  'JobStopped',
  'EnvelopeBlockAppended',
  'EnvelopeWideningRefused',
  'RevocationBatchApplied',
  'RevocationReceiptIssued',
  'HoldPlaced',
  'HoldReleased',
  'ErasureRequested',
  'SubjectKeyShredded',
  'ErasureDeferred',
  'RecordRemoved',
  'RenewalRequested',
  'TenantExported',
  'StartupTextAssembled',
  'FilesHanded',
  'FileRemoved',
  'AgentKillLifted',
  'AgentRecordPut',
  'AgentRecordDeleted',
  'AgentPersonForgotten',
  'TenantRemoved',
] as const;

/**
 * A tenant's tree as far as appending needs it: its size and the right edge — the roots of
 * the complete subtrees that cover the leaves so far, biggest first (one per set bit of size).
 */
interface Edge {
  size: number;
  readonly frontier: { level: number; hash: Buffer }[];
}

/** The (level, idx) of each subtree on the right edge of a tree of `size` leaves, biggest first. */
const edgeNodes = (size: number) => {
  const nodes: { level: number; idx: number }[] = [];
  let start = 0;
  for (let level = 52; level >= 0; level--) {
    const width = 2 ** level;
    if (size - start >= width) {
      nodes.push({ level, idx: start / width });
      start += width;
    }
  }
  return nodes;
};

const refOf = (tenant: string, job: string, run: number) => `${tenant}\u0000${job}\u0000${run}`;

/** What the projection remembers between batches, valid only at `at` (a log position). */
interface Memory {
  at: number | null;
  /** The log position after which AUDITED_SINCE_V2 events are audited (rm_audit_kinds, kept across rebuilds). */
  sinceV2: number | null;
  readonly edges: Map<string, Edge>;
  readonly jobs: Map<string, JobFacts>;
}

const recordRefOf = (tenant: string, plugin: string, scope: string, key: string) => `${tenant}\u0000${plugin}\u0000${scope}\u0000${key}`;

/**
 * The newest version of each record a removal in `items` names, as the log had it just before the
 * span (this projection's own table: another model's rows change, and an entry must read the same
 * however late it is rebuilt). Versions written inside the span are folded in as the span goes.
 */
const loadNewest = async (sql: Sql, items: readonly Applicable[]): Promise<Map<string, number | null>> => {
  const removed = items
    .filter((a) => a.event.type === 'RecordRemoved')
    .map((a) => a.event.data as { tenant: string; plugin: string; scope: string; key: string });
  const newest = new Map<string, number | null>();
  if (removed.length === 0) return newest;
  const { rows } = await sql.query<{ tenant: string; plugin: string; scope: string; key: string; newest: number }>(
    `SELECT v.tenant, v.plugin, v.scope, v.key, v.newest FROM rm_audit_versions v
     JOIN unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w(tenant, plugin, scope, key)
       ON v.tenant = w.tenant AND v.plugin = w.plugin AND v.scope = w.scope AND v.key = w.key`,
    [removed.map((r) => r.tenant), removed.map((r) => r.plugin), removed.map((r) => r.scope), removed.map((r) => r.key)],
  );
  for (const r of rows) newest.set(recordRefOf(r.tenant, r.plugin, r.scope, r.key), Number(r.newest));
  return newest;
};

const JOB_MEMORY = 50_000;

const loadEdges = async (sql: Sql, memory: Memory, tenants: readonly string[]) => {
  const missing = tenants.filter((t) => !memory.edges.has(t));
  if (missing.length === 0) return;
  const { rows: heads } = await sql.query<{ tenant: string; size: number }>('SELECT tenant, size FROM rm_audit_heads WHERE tenant = ANY($1::text[])', [
    missing,
  ]);
  const sizes = new Map(heads.map((h) => [h.tenant, Number(h.size)]));
  const want = missing.flatMap((t) => edgeNodes(sizes.get(t) ?? 0).map((n) => ({ tenant: t, ...n })));
  const hashes = new Map<string, Buffer>();
  if (want.length > 0) {
    const { rows } = await sql.query<{ tenant: string; level: number; idx: number; hash: Buffer }>(
      `SELECT n.tenant, n.level, n.idx, n.hash FROM rm_audit_nodes n
       JOIN unnest($1::text[], $2::int[], $3::bigint[]) AS w(tenant, level, idx) ON n.tenant = w.tenant AND n.level = w.level AND n.idx = w.idx`,
      [want.map((w) => w.tenant), want.map((w) => w.level), want.map((w) => w.idx)],
    );
    for (const r of rows) hashes.set(`${r.tenant}\u0000${r.level}\u0000${Number(r.idx)}`, r.hash);
  }
  for (const t of missing) {
    const size = sizes.get(t) ?? 0;
    const frontier = edgeNodes(size).map(({ level, idx }) => {
      const hash = hashes.get(`${t}\u0000${level}\u0000${idx}`);
      if (!hash) throw new Error(`audit: tenant ${t} has ${size} entries but no node (${level}, ${idx})`);
      return { level, hash };
    });
    memory.edges.set(t, { size, frontier });
  }
};

const loadJobs = async (sql: Sql, memory: Memory, wanted: readonly { tenant: string; job: string; run: number }[]) => {
  const missing = wanted.filter((w) => !memory.jobs.has(refOf(w.tenant, w.job, w.run)));
  if (missing.length === 0) return;
  const { rows } = await sql.query<JobFacts & { tenant: string; job: string; run: number }>(
    `SELECT j.tenant, j.job, j.run, j.agent, j.purpose, j.subject FROM rm_audit_jobs j
     JOIN unnest($1::text[], $2::text[], $3::int[]) AS w(tenant, job, run) ON j.tenant = w.tenant AND j.job = w.job AND j.run = w.run`,
    [missing.map((w) => w.tenant), missing.map((w) => w.job), missing.map((w) => w.run)],
  );
  for (const r of rows) memory.jobs.set(refOf(r.tenant, r.job, r.run), { agent: r.agent, purpose: r.purpose, subject: r.subject });
};

const tenantOf = (a: Applicable) => (a.event.data as { tenant?: string }).tenant;

/** The runs an event's entry names (the reader, the writer). */
const namedRuns = (a: Applicable) => {
  const d = a.event.data as { job?: string; run?: number; writer?: { job: string; run: number } };
  return [...(d.job !== undefined && d.run !== undefined ? [{ job: d.job, run: d.run }] : []), ...(d.writer ? [d.writer] : [])];
};

type Write = () => Promise<unknown>;

/**
 * Computes a span's entries in memory from the right edge and answers the writes that store
 * them, one multi-row statement per table, to be sent in this order (the caller sends them).
 */
const appendEntries = async (sql: Sql, items: readonly Applicable[], memory: Memory): Promise<Write[]> => {
  const relevant = items.filter((a) => tenantOf(a));
  if (relevant.length === 0) return [];
  const tenants = [...new Set(relevant.map((a) => tenantOf(a)!))];
  // Facts made inside this span are in memory before they are needed; the rest are read once.
  const started = new Set(
    relevant
      .filter((a) => a.event.type === 'JobStarted')
      .map((a) => refOf(tenantOf(a)!, (a.event.data as { job: string }).job, (a.event.data as { run: number }).run)),
  );
  const needed = relevant.flatMap((a) => namedRuns(a).map((r) => ({ tenant: tenantOf(a)!, ...r }))).filter((w) => !started.has(refOf(w.tenant, w.job, w.run)));
  if (memory.jobs.size + needed.length > JOB_MEMORY) memory.jobs.clear();
  await Promise.all([loadEdges(sql, memory, tenants), loadJobs(sql, memory, needed)]);
  if (memory.sinceV2 === null) {
    const { rows } = await sql.query<{ from_position: string }>('SELECT from_position FROM rm_audit_kinds WHERE version = 2');
    memory.sinceV2 = Number(rows[0]?.from_position ?? 0);
  }
  const sinceV2 = memory.sinceV2;
  const [newest] = await Promise.all([loadNewest(sql, relevant), loadEdges(sql, memory, tenants), loadJobs(sql, memory, needed)]);
  // Each record's newest version as of each event: written (a number) or removed (null) in this span.
  const touched = new Map<string, { tenant: string; plugin: string; scope: string; key: string; newest: number | null; removed: boolean }>();

  const newJobs: { tenant: string; job: string; run: number; agent: string; purpose: string; subject: string }[] = [];
  const entries: {
    tenant: string;
    seq: number;
    at: number;
    kind: string;
    job: string | null;
    subject: string | null;
    epoch: number | null;
    record_refs: string[];
    line: string;
  }[] = [];
  const nodes: { tenant: string[]; level: number[]; idx: number[]; hash: string[] } = { tenant: [], level: [], idx: [], hash: [] };
  const grown = new Set<string>();
  for (const a of relevant) {
    const { event, recorded } = a;
    const tenant = tenantOf(a)!;
    // The projection keeps its own job facts, per run: another model's rows change as ids are
    // started again, and an entry read from them would change on rebuild. The first wins.
    if (event.type === 'JobStarted') {
      const d = event.data;
      const ref = refOf(tenant, d.job, d.run);
      if (!memory.jobs.has(ref)) {
        memory.jobs.set(ref, { agent: d.agent, purpose: d.purpose, subject: d.subject });
        newJobs.push({ tenant, job: d.job, run: d.run, agent: d.agent, purpose: d.purpose, subject: d.subject });
      }
    }
    if (AUDITED_SINCE_V2.has(event.type) && recorded.position <= sinceV2) continue;
    const fields = auditFields(
      event,
      (job, run) => memory.jobs.get(refOf(tenant, job, run)) ?? null,
      // Entries logged before this build named no version removed: a rebuild keeps their leaves as they were signed.
      recorded.position <= sinceV2 ? () => null : (plugin, scope, key) => newest.get(recordRefOf(tenant, plugin, scope, key)) ?? null,
    );
    if (event.type === 'RecordVersionWritten' || event.type === 'RecordRemoved') {
      const { plugin, scope, key } = event.data;
      const version = event.type === 'RecordRemoved' ? null : Math.max(event.data.version, newest.get(recordRefOf(tenant, plugin, scope, key)) ?? 0);
      newest.set(recordRefOf(tenant, plugin, scope, key), version);
      const ref = recordRefOf(tenant, plugin, scope, key);
      touched.set(ref, { tenant, plugin, scope, key, newest: version, removed: version === null || touched.get(ref)?.removed === true });
    }
    if (!fields) continue;
    const edge = memory.edges.get(tenant)!;
    const seq = edge.size;
    const line = canonicalJson({ seq, at: recorded.recorded_at, ...fields });
    entries.push({
      tenant,
      seq,
      at: recorded.recorded_at,
      kind: fields.kind,
      job: fields.job ?? null,
      subject: fields.subject ?? null,
      epoch: fields.epoch ?? null,
      record_refs: recordRefs(fields.records),
      line,
    });
    // Each complete subtree is stored once: a new leaf, then every parent it completes.
    let hash = leafHash(Buffer.from(line));
    let level = 0;
    let idx = seq;
    const node = () => {
      nodes.tenant.push(tenant);
      nodes.level.push(level);
      nodes.idx.push(idx);
      nodes.hash.push(hash.toString('hex'));
    };
    node();
    while (edge.frontier.length > 0 && edge.frontier.at(-1)!.level === level) {
      hash = nodeHash(edge.frontier.pop()!.hash, hash);
      level++;
      idx = (idx - 1) / 2;
      node();
    }
    edge.frontier.push({ level, hash });
    edge.size = seq + 1;
    grown.add(tenant);
  }

  const writes: Write[] = [];
  const send = (text: string, params: readonly unknown[]) => writes.push(() => sql.query(text, params));
  if (newJobs.length > 0)
    send(
      `INSERT INTO rm_audit_jobs (tenant, job, run, agent, purpose, subject)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[]) ON CONFLICT DO NOTHING`,
      [
        newJobs.map((j) => j.tenant),
        newJobs.map((j) => j.job),
        newJobs.map((j) => j.run),
        newJobs.map((j) => j.agent),
        newJobs.map((j) => j.purpose),
        newJobs.map((j) => j.subject),
      ],
    );
  // Removed first (a key written again after its removal starts again at 1), then the newest kept.
  const gone = [...touched.values()].filter((t) => t.removed);
  const written = [...touched.values()].filter((t) => t.newest !== null);
  if (gone.length > 0)
    send(
      `DELETE FROM rm_audit_versions v USING unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w(tenant, plugin, scope, key)
       WHERE v.tenant = w.tenant AND v.plugin = w.plugin AND v.scope = w.scope AND v.key = w.key`,
      [gone.map((w) => w.tenant), gone.map((w) => w.plugin), gone.map((w) => w.scope), gone.map((w) => w.key)],
    );
  if (written.length > 0)
    send(
      `INSERT INTO rm_audit_versions (tenant, plugin, scope, key, newest)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[])
       ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET newest = GREATEST(rm_audit_versions.newest, EXCLUDED.newest)`,
      [written.map((w) => w.tenant), written.map((w) => w.plugin), written.map((w) => w.scope), written.map((w) => w.key), written.map((w) => w.newest)],
    );
  if (entries.length === 0) return writes;
  send(
    `INSERT INTO rm_audit (tenant, seq, at, kind, job, subject, epoch, record_refs, line)
     SELECT tenant, seq, at, kind, job, subject, epoch, record_refs, line FROM jsonb_to_recordset($1::jsonb)
       AS x(tenant text, seq bigint, at bigint, kind text, job text, subject text, epoch int, record_refs text[], line text)`,
    [JSON.stringify(entries)],
  );
  send(
    `INSERT INTO rm_audit_nodes (tenant, level, idx, hash)
     SELECT t, l, i, decode(h, 'hex') FROM unnest($1::text[], $2::int[], $3::bigint[], $4::text[]) AS n(t, l, i, h)`,
    [nodes.tenant, nodes.level, nodes.idx, nodes.hash],
  );
  const heads = [...grown];
  send(
    `INSERT INTO rm_audit_heads (tenant, size) SELECT * FROM unnest($1::text[], $2::bigint[])
     ON CONFLICT (tenant) DO UPDATE SET size = EXCLUDED.size`,
    [heads, heads.map((t) => memory.edges.get(t)!.size)],
  );
  return writes;
};

const BATCH = 2_000;

/**
 * The unprojected events of a log written before the line store (up to `to`, default all),
 * derived as the projection did. Exported for the upgrade's test, which builds a log of the
 * previous release with it.
 */
export const legacyCatchUp = async (sql: Sql, to = Number.MAX_SAFE_INTEGER) => {
  const { rows: at } = await sql.query<{ position: string }>(`SELECT position FROM custodian_checkpoints WHERE name = 'audit'`);
  let position = Number(at[0]?.position ?? 0);
  const handled = new Set<string>(HANDLED);
  const memory: Memory = { at: null, sinceV2: null, edges: new Map(), jobs: new Map() };
  for (;;) {
    const { rows } = await sql.query<RecordedEvent & { recorded_ms: string }>(
      `SELECT position, stream, revision, event_id, type, schema_version, data, metadata,
              (extract(epoch from recorded_at) * 1000)::bigint AS recorded_ms
       FROM custodian_events WHERE position > $1 AND position <= $3 ORDER BY position LIMIT $2`,
      [position, BATCH, to],
    );
    if (rows.length === 0) break;
    const items: Applicable[] = [];
    for (const r of rows) {
      if (!handled.has(r.type)) continue;
      const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
      if (E.isLeft(decoded)) throw new Error(`audit upgrade at position ${r.position}: ${decoded.left}`);
      items.push({ event: decoded.right, recorded: { ...r, position: Number(r.position), revision: Number(r.revision), recorded_at: Number(r.recorded_ms) } });
    }
    for (const write of await appendEntries(sql, items, memory)) await write();
    position = Number(rows.at(-1)!.position);
  }
  await sql.query(`UPDATE custodian_checkpoints SET position = $1 WHERE name = 'audit'`, [position]);
};

/**
 * The one step of the schema that is code, not SQL: before migration `eventstore-009` freezes
 * the derived lines into the line store, the events the released projection had not reached
 * get their lines as it would have derived them. Recorded in the ledger like a migration.
 */
export const auditCatchUpStep = {
  id: 'audit-catch-up-001',
  sql: '-- projections/audit-upgrade.ts legacyCatchUp: the released audit projection, run once to the head of the log',
  run: (tx: Sql) => legacyCatchUp(tx),
} as const;
