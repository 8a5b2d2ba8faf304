import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { checkpointSigner, newAuditKey } from '../adapters/keys/audit-key.ts';
import { postgresKeystore } from '../adapters/keys/keystore.ts';
import { createPool } from '../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../adapters/postgres/read-model-store.ts';
import { nodeHash } from '../domain/audit/merkle.ts';
import { TILE_WIDTH } from '../domain/audit/tiles.ts';
import type { DomainEvent } from '../domain/events/registry.ts';
import { allProjections } from '../projections/all.ts';
import { createAuditProjection } from '../projections/audit.ts';
import type { Applicable } from '../projections/projection.ts';
import { ensureProjectionSchemas } from '../projections/runner.ts';
import { auditQueries } from '../queries/audit.ts';
import { readHashes } from '../queries/audit-tiles.ts';

/**
 * `BENCH_ONLY=tiles`: the audit log as tlog-tiles.
 * - Entries integrated per second: the audit projection (the integrator: leaf, every node a
 *   leaf completes, the line) over prepared HoldPlaced events, 500 a batch, one transaction a
 *   batch, for BENCH_SECONDS.
 * - At BENCH_TILES_ENTRIES (10⁶) entries, a generated tree written straight into rm_audit_nodes:
 *   the time to answer a signed checkpoint and an inclusion proof of a random leaf (the queries
 *   the routes call, without HTTP), and a full hash tile read from the node rows beside the same
 *   tile read as one stored row (the alternative of writing each full tile once as a row).
 */

const BATCH = 500;
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

const holdEvent = (tenant: string, i: number, position: number): Applicable => {
  const event = {
    type: 'HoldPlaced',
    data: { tenant, hold: `h${i}`, selector: { data_subject: `user:s${i}` }, reason: `bench ${i}`, placed_ms: 1_700_000_000_000 + i },
  } as DomainEvent;
  return {
    event,
    recorded: {
      event_id: randomUUID(),
      type: event.type,
      schema_version: 1,
      metadata: { tenant, causation_id: null, correlation_id: null },
      data: event.data,
      stream: `tenant:${tenant}`,
      revision: i,
      position,
      recorded_at: 1_700_000_000_000 + i,
    },
  };
};

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
    const sealer = await postgresKeystore(pool, randomBytes(32));
    await ensureProjectionSchemas(models, allProjections({ sealer }));

    // Integration: the audit projection over prepared events, one batch a transaction.
    const audit = createAuditProjection();
    let done = 0;
    let position = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) {
      const items = Array.from({ length: BATCH }, (_, k) => holdEvent('bench', done + k, position + k + 1));
      const span = { after: position, to: position + BATCH };
      await models.transaction((sql) => audit.applyBatch!(sql, items, span));
      position += BATCH;
      done += BATCH;
    }
    const elapsed = (performance.now() - start) / 1000;
    console.log(
      `  integrated: ${done} entries in ${elapsed.toFixed(1)} s = ${Math.round(done / elapsed)} entries/s (leaf, nodes and line stored, ${BATCH} a batch)`,
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
