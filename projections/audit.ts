import { leafHash, nodeHash } from '../domain/audit/merkle.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import type { LogSpan, Projection } from './projection.ts';

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

/** What the integrator remembers between batches, valid only at `at` (a log position the runner's checkpoint stood at). */
interface Memory {
  at: number | null;
  readonly edges: Map<string, Edge>;
}

/** Lines integrated per statement round. */
const CHUNK = 5_000;

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

/**
 * The stored lines not yet in their trees, at most `CHUNK`, each tenant's in order from its
 * tree's size: a tenant's lines commit in the order of their places (its counter row is held
 * until commit), so what is readable is a contiguous run.
 */
const pendingLines = async (sql: Sql) =>
  (
    await sql.query<{ tenant: string; seq: string; line: string }>(
      `SELECT l.tenant, l.seq, l.line
       FROM custodian_audit_sizes s LEFT JOIN rm_audit_heads h ON h.tenant = s.tenant
       CROSS JOIN LATERAL (
         SELECT x.tenant, x.seq, x.line FROM custodian_audit_lines x
         WHERE x.tenant = s.tenant AND x.seq >= coalesce(h.size, 0) ORDER BY x.seq LIMIT $1) l
       WHERE s.size > coalesce(h.size, 0)
       ORDER BY l.tenant, l.seq LIMIT $1`,
      [CHUNK],
    )
  ).rows;

/**
 * Integrates one chunk of stored lines: each line's leaf hash and every parent it completes
 * into `rm_audit_nodes`, each tenant's new size into `rm_audit_heads`. Answers how many lines
 * it integrated (0: none was waiting).
 */
const integrate = async (sql: Sql, memory: Memory): Promise<number> => {
  const lines = await pendingLines(sql);
  if (lines.length === 0) return 0;
  // A tenant's pending lines start at its stored tree's size: an edge remembered at another size
  // is stale (its tree was rebuilt, or the tenant moved out and back, by another process) and is read again.
  const firstSeq = new Map<string, number>();
  for (const l of lines) if (!firstSeq.has(l.tenant)) firstSeq.set(l.tenant, Number(l.seq));
  for (const [tenant, seq] of firstSeq) if ((memory.edges.get(tenant)?.size ?? seq) !== seq) memory.edges.delete(tenant);
  await loadEdges(sql, memory, [...new Set(lines.map((l) => l.tenant))]);
  const nodes: { tenant: string[]; level: number[]; idx: number[]; hash: string[] } = { tenant: [], level: [], idx: [], hash: [] };
  const grown = new Set<string>();
  let integrated = 0;
  for (const { tenant, seq: at, line } of lines) {
    const edge = memory.edges.get(tenant)!;
    const seq = Number(at);
    // Only the next place: a line past a missing one waits (it cannot be, see pendingLines).
    if (seq !== edge.size) continue;
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
    integrated++;
  }
  if (integrated === 0) return 0;
  await sql.query(
    `INSERT INTO rm_audit_nodes (tenant, level, idx, hash)
     SELECT t, l, i, decode(h, 'hex') FROM unnest($1::text[], $2::int[], $3::bigint[], $4::text[]) AS n(t, l, i, h)`,
    [nodes.tenant, nodes.level, nodes.idx, nodes.hash],
  );
  const heads = [...grown];
  await sql.query(
    `INSERT INTO rm_audit_heads (tenant, size) SELECT * FROM unnest($1::text[], $2::bigint[])
     ON CONFLICT (tenant) DO UPDATE SET size = EXCLUDED.size`,
    [heads, heads.map((t) => memory.edges.get(t)!.size)],
  );
  return integrated;
};

/**
 * The audit log's integrator: it builds each tenant's RFC 6962 tree from the lines stored
 * with their events (`custodian_audit_lines`), never from the events themselves — it decodes
 * none. Each complete subtree is stored once (`rm_audit_nodes`: level, index), so any root or
 * proof is O(log n) reads. Appending needs only the right edge of each tree, which this
 * instance keeps in memory between batches (loaded once per tenant), trusted only when the
 * runner's checkpoint stands where it left it. A rebuild empties the trees and integrates
 * every stored line again; a logged line is never derived again.
 *
 * Make one instance per runner: its memory belongs to one database.
 */
export const createAuditProjection = (): Projection => {
  const memory: Memory = { at: null, edges: new Map() };
  const forget = () => {
    memory.at = null;
    memory.edges.clear();
  };
  const run = async (sql: Sql, span: LogSpan | null) => {
    if (span === null || memory.at !== span.after || span.after === 0) forget();
    memory.at = null;
    try {
      while ((await integrate(sql, memory)) > 0);
    } catch (error) {
      forget();
      throw error;
    }
    if (span) memory.at = span.to;
  };
  return {
    name: 'audit',
    order: 'log',
    tables: ['rm_audit_nodes', 'rm_audit_heads'],
    // It reads stored lines, not events: handed every span, it decodes nothing.
    canHandle: [],
    everySpan: true,
    async apply(sql) {
      await run(sql, null);
    },
    async applyBatch(sql, _items, span) {
      await run(sql, span);
    },
  };
};

/** An instance for one-off use (a rebuild, a test): its memory is trusted only within a span it just wrote. */
export const auditProjection: Projection = createAuditProjection();
