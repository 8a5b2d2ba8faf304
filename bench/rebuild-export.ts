// `node --import tsx bench/rebuild-export.ts`: projection rebuild (events/s) and a cold export
// (records/s) on a throwaway embedded PostgreSQL. BENCH_RECORDS sets the log's size.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startEmbeddedPostgres } from '../adapters/embedded-postgres/start.ts';
import { postgresEventStore } from '../adapters/eventstore/postgres.ts';
import { postgresKeystore } from '../adapters/keys/keystore.ts';
import { applySchema } from '../adapters/postgres/schema.ts';
import { createPool } from '../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../adapters/postgres/read-model-store.ts';
import type { NewEvent } from '../domain/ports/event-store.ts';
import { allProjections } from '../projections/all.ts';
import { rebuildProjection } from '../projections/runner.ts';
import { exportTenant } from '../queries/export.ts';

const total = Number(process.env.BENCH_RECORDS ?? 20_000);
const dir = mkdtempSync(path.join(tmpdir(), 'custodian-bench-rebuild-'));
const server = await startEmbeddedPostgres({ dataDir: dir, database: 'bench', persistent: false });
const pool = createPool(server.url, 10);
await applySchema(pool);
const masterKey = randomBytes(32);
try {
  const store = await postgresEventStore(pool);
  const models = postgresReadModelStore(pool);
  const sealer = await postgresKeystore(pool, masterKey);
  const projections = allProjections({ sealer });

  const seeded = performance.now();
  const scopes = 20;
  for (let s = 0; s < scopes; s++) {
    const stream = `records:bench:notes:scope-${s}`;
    const per = Math.ceil(total / scopes);
    for (let from = 0; from < per; from += 500) {
      const events: NewEvent[] = [];
      for (let i = from; i < Math.min(per, from + 500); i++) {
        const ctx = { tenant: 'bench', plugin: 'notes', scope: `scope-${s}`, key: `r${i}`, version: 1, data_subject: null };
        const text = JSON.stringify({ text: `record ${s}/${i} ${'x'.repeat(200)}` });
        events.push({
          event_id: randomUUID(),
          type: 'RecordVersionWritten',
          schema_version: 1,
          metadata: { tenant: 'bench', causation_id: null, correlation_id: null },
          data: {
            ...ctx,
            body: await sealer.seal(ctx, 'body', text),
            body_bytes: text.length,
            kind: 'note',
            state: 'active',
            supersedes: null,
            ends_at: 4_000_000_000_000,
            subject_kind: 'work',
            closed: false,
            purpose: 'routine:bench',
            labels: [],
            created_ms: Date.now(),
            writer: { job: 'j', run: 1, call: 'c', step: 1, agent: 'scribe', plugin: 'notes', tainted: false },
            request_key: `rk-${s}-${i}`,
            dedupe: await sealer.seal(ctx, 'dedupe', sealer.dedupeDigest('bench', text)),
          },
        });
      }
      await store.append(stream, events, 'any');
    }
  }
  const head = await store.headPosition();
  console.log(`seeded ${head} events in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

  for (const name of ['records', 'dedupe-digests', 'retention', 'audit']) {
    const p = projections.find((x) => x.name === name)!;
    const t = performance.now();
    await rebuildProjection(store, models, p);
    const seconds = (performance.now() - t) / 1000;
    console.log(`rebuild ${name.padEnd(15)} ${(head / seconds).toFixed(0).padStart(8)} events/s (${seconds.toFixed(2)} s)`);
  }

  // Cold: a keystore that has opened nothing yet.
  const cold = await postgresKeystore(pool, masterKey);
  const t = performance.now();
  const exported = await exportTenant(store, cold, 'bench', {});
  const seconds = (performance.now() - t) / 1000;
  console.log(
    `export (cold)          ${(exported.records / seconds).toFixed(0).padStart(8)} records/s (${exported.records} records, ${seconds.toFixed(2)} s, sha256 ${exported.sha256.slice(0, 12)})`,
  );
} finally {
  await pool.end();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
