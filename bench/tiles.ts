import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { checkpointSigner, newAuditKey } from '../adapters/keys/audit-key.ts';
import { createPool } from '../adapters/postgres/pool.ts';
import { applySchema } from '../adapters/postgres/schema.ts';
import { postgresReadModelStore } from '../adapters/postgres/read-model-store.ts';
import { nodeHash } from '../domain/audit/merkle.ts';
import { TILE_WIDTH } from '../domain/audit/tiles.ts';
import { createAuditProjection } from '../projections/audit.ts';
import { auditQueries } from '../queries/audit.ts';
import { readHashes } from '../queries/audit-tiles.ts';

/**
 * `BENCH_ONLY=tiles`: the audit log as tlog-tiles.
 * - Entries integrated per second: the integrator (leaf, every node a leaf completes) over
 *   lines stored as commits store them, one transaction a span, for BENCH_SECONDS.
 * - At BENCH_TILES_ENTRIES (10⁶) entries, a generated tree written straight into rm_audit_nodes:
 *   the time to answer a signed checkpoint and an inclusion proof of a random leaf (the queries
 *   the routes call, without HTTP), and a full hash tile read from the node rows beside the same
 *   tile read as one stored row (the alternative of writing each full tile once as a row).
 */

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const ms = (x: number) => `${x.toFixed(2)} ms`;
const timings = async (n: number, work: (i: number) => Promise<unknown>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await work(i);
    out.push(performance.now() - start);
  }
  return out.sort((a, b) => a - b);
};
const line = (label: string, t: readonly number[]) =>
  console.log(`  ${label}: median ${ms(quantile(t, 0.5))}, p99 ${ms(quantile(t, 0.99))} (${t.length} runs)`);

/** Every node of a tree of `size` generated leaves, level by level (what the integrator stores). */
const generatedTree = (size: number) => {
  const levels: Buffer[][] = [Array.from({ length: size }, (_, i) => createHash('sha256').update(`leaf ${i}`).digest())];
  while (levels.at(-1)!.length > 1) {
    const below = levels.at(-1)!;
    const up: Buffer[] = [];
    for (let i = 0; i + 1 < below.length; i += 2) up.push(nodeHash(below[i]!, below[i + 1]!));
    levels.push(up);
  }
  return levels;
};

export const benchTiles = async (dbUrl: string, seconds: number, entries: number) => {
  console.log(`\n## Audit log as tlog-tiles (BENCH_ONLY=tiles; ${seconds} s of integration, a tree of ${entries} entries)`);
  const pool = createPool(dbUrl, 4);
  try {
    const models = postgresReadModelStore(pool);
    await applySchema(pool);

    // Integration: lines stored as commits store them (one tenant), then the integrator over
    // them, a span at a time, one transaction a span, for BENCH_SECONDS.
    const audit = createAuditProjection();
    const prepared = Math.max(50_000, seconds * 40_000);
    for (let from = 0; from < prepared; from += 10_000) {
      const seqs = Array.from({ length: Math.min(10_000, prepared - from) }, (_, k) => from + k);
      await pool.query(
        `INSERT INTO custodian_audit_lines (tenant, seq, at, kind, record_refs, line)
         SELECT 'bench', s, 1700000000000 + s, 'hold_placed', '{}', '{"at":' || (1700000000000 + s) || ',"kind":"hold_placed","reason":"bench","seq":' || s || '}'
         FROM unnest($1::bigint[]) AS s`,
        [seqs],
      );
    }
    await pool.query(`INSERT INTO custodian_audit_sizes (tenant, size) VALUES ('bench', $1)`, [prepared]);
    let position = 0;
    const size = async () => Number((await pool.query(`SELECT coalesce((SELECT size FROM rm_audit_heads WHERE tenant = 'bench'), 0) AS n`)).rows[0].n);
    const start = performance.now();
    while (performance.now() - start < seconds * 1000 && (await size()) < prepared) {
      const span = { after: position, to: position + 1 };
      await models.transaction((sql) => audit.applyBatch!(sql, [], span));
      position += 1;
    }
    const done = await size();
    const elapsed = (performance.now() - start) / 1000;
    console.log(
      `  integrated: ${done} entries in ${elapsed.toFixed(1)} s = ${Math.round(done / elapsed)} entries/s (stored lines read, leaves and nodes written, one transaction a span)`,
    );

    // A 10⁶-entry tree, written straight into the node rows.
    const filled = performance.now();
    const tree = generatedTree(entries);
    for (const [level, hashes] of tree.entries())
      for (let from = 0; from < hashes.length; from += 50_000) {
        const chunk = hashes.slice(from, from + 50_000);
        await pool.query(`INSERT INTO rm_audit_nodes (tenant, level, idx, hash) SELECT 'big', $1, i, h FROM unnest($2::bigint[], $3::bytea[]) AS n(i, h)`, [
          level,
          chunk.map((_, k) => from + k),
          chunk,
        ]);
      }
    await pool.query(`INSERT INTO rm_audit_heads (tenant, size) VALUES ('big', $1)`, [entries]);
    await pool.query('ANALYZE rm_audit_nodes');
    console.log(`  (the tree of ${entries} entries written into rm_audit_nodes in ${((performance.now() - filled) / 1000).toFixed(1)} s)`);

    const queries = auditQueries(models, checkpointSigner(newAuditKey(), 'bench.example/custodian'));
    const leaf = (i: number) => Math.floor((((i * 7919 + 13) % 1000) / 1000) * entries);
    const runs = 300;
    const both = await timings(runs, async (i) => {
      const cp = await queries.checkpoint('big');
      await queries.inclusion('big', leaf(i), cp.size);
    });
    line(`signed checkpoint + inclusion proof at ${entries} entries`, both);
    line('  of which the signed checkpoint', await timings(runs, () => queries.checkpoint('big')));

    // A full hash tile: 256 node rows (what is served) against one stored tile row (the alternative).
    const tiles = Math.floor(entries / TILE_WIDTH);
    line(
      'full hash tile from node rows (256 rows, the served path)',
      await timings(runs, (i) => readHashes(models, 'big', 0, ((i * 131) % tiles) * TILE_WIDTH, TILE_WIDTH)),
    );
    const client = await pool.connect();
    try {
      await client.query('CREATE TEMP TABLE bench_tile_rows (level int, idx bigint, data bytea, PRIMARY KEY (level, idx))');
      const rows = tree[0]!;
      for (let t = 0; t < tiles; t += 500) {
        const ids = Array.from({ length: Math.min(500, tiles - t) }, (_, k) => t + k);
        await client.query('INSERT INTO bench_tile_rows SELECT 0, i, d FROM unnest($1::bigint[], $2::bytea[]) AS x(i, d)', [
          ids,
          ids.map((id) => Buffer.concat(rows.slice(id * TILE_WIDTH, (id + 1) * TILE_WIDTH))),
        ]);
      }
      await client.query('ANALYZE bench_tile_rows');
      line(
        'full hash tile as one stored row (the alternative)',
        await timings(runs, (i) => client.query('SELECT data FROM bench_tile_rows WHERE level = 0 AND idx = $1', [(i * 131) % tiles])),
      );
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
};
