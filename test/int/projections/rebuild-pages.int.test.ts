import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticatedEventStore } from '../../../adapters/eventstore/authenticated.ts';
import { auditLinesStore } from '../../../adapters/eventstore/audit-lines.ts';
import { eventMacKeys } from '../../../adapters/eventstore/event-macs.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import type { EventStore, NewEvent } from '../../../domain/ports/event-store.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { allProjections } from '../../../projections/all.ts';
import type { Projection } from '../../../projections/projection.ts';
import { rebuildProjection, runBatch } from '../../../projections/runner.ts';
import { freshDatabase } from '../../support/database.ts';
import { dumpReadModels } from '../../support/dump.ts';

const meta = () => ({ tenant: 'acme', causation_id: randomUUID(), correlation_id: randomUUID() });

const written = (key: string, version: number, requestKey: string, job: string): NewEvent => ({
  event_id: randomUUID(),
  type: 'RecordVersionWritten',
  schema_version: 1,
  metadata: meta(),
  data: {
    tenant: 'acme',
    plugin: 'notes',
    scope: 'project:x',
    key,
    version,
    data_subject: null,
    body: { c: randomBytes(24).toString('base64'), k: 'k1', n: randomBytes(12).toString('base64') },
    body_bytes: 20 + version,
    kind: 'note',
    state: 'active',
    supersedes: version > 1 ? `${key}@${version - 1}` : null,
    ends_at: 4_000_000_000_000,
    subject_kind: 'work',
    closed: false,
    purpose: 'routine:test',
    labels: [`v${version}`],
    created_ms: 1_700_000_000_000 + version,
    writer: { job, run: 1, call: randomUUID(), step: 1, agent: 'scribe', plugin: 'notes', tainted: version % 3 === 0 },
    request_key: requestKey,
    dedupe: { c: randomBytes(24).toString('base64'), k: 'k1', n: randomBytes(12).toString('base64') },
  },
});

const removed = (key: string): NewEvent => ({
  event_id: randomUUID(),
  type: 'RecordRemoved',
  schema_version: 1,
  metadata: meta(),
  data: { tenant: 'acme', plugin: 'notes', scope: 'project:x', key, reason: 'erasure', removed_ms: 1_700_000_000_500 },
});

/** Every index of the public schema, as PostgreSQL would recreate it. */
const indexes = async (pool: pg.Pool) =>
  (await pool.query<{ def: string }>(`SELECT indexdef AS def FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`)).rows.map((r) => r.def);

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let raw: EventStore;
let store: EventStore;
let models: ReadModelStore;
let projections: readonly Projection[] = [];

describe('rebuild in pages (postgres, authenticated log)', () => {
  beforeAll(async () => {
    db = await freshDatabase();
    pool = createPool(db.url, 6);
    raw = await postgresEventStore(pool);
    store = auditLinesStore(authenticatedEventStore(raw, eventMacKeys(randomBytes(32))));
    models = postgresReadModelStore(pool);
    // The models this log feeds without sealed bodies to open (dedupe digests open theirs).
    projections = allProjections({ sealer: await postgresKeystore(pool, randomBytes(32)) }).filter((p) => ['records', 'audit', 'retention'].includes(p.name));
    // New versions, removals and writes after a removal, a request key used twice: what the
    // set-based paths must order exactly as one by one, spread over many pages.
    for (let round = 1; round <= 4; round++) {
      const events: NewEvent[] = [];
      for (let i = 0; i < 30; i++) events.push(written(`k${i}`, round, i % 7 === 0 ? `shared-${i}` : `rk-${round}-${i}`, `job-${i % 3}`));
      if (round === 2) for (let i = 0; i < 30; i += 5) events.push(removed(`k${i}`));
      await store.append('records:acme:notes:x', events, 'any');
    }
    // Readable once no older transaction elsewhere on the server is open: the live runner below
    // must see the whole log, or it would build from part of it.
    const committed = await raw.committedHead!();
    while ((await store.headPosition()) < committed) await new Promise((r) => setTimeout(r, 20));
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await db.drop();
  });

  it('given a log, when rebuilt in pages of 7 and in one page, then both equal what the live runner built in batches of 11, indexes unchanged', async () => {
    const before = await indexes(pool);
    const known: Record<string, number> = {};
    for (;;) {
      const result = await runBatch(store, models, projections, 11);
      if (result.applied === 0) break;
      Object.assign(known, 'after' in result ? result.after : result.from);
    }
    const live = await dumpReadModels(models, projections);
    expect((live.rm_records ?? []).length).toBeGreaterThan(0);
    expect((live.rm_audit_nodes ?? []).length).toBeGreaterThan(0);
    for (const pageSize of [7, 10_000]) {
      for (const p of projections) await rebuildProjection(store, models, p, undefined, pageSize);
      expect(await dumpReadModels(models, projections)).toEqual(live);
      expect(await indexes(pool)).toEqual(before);
    }
  });

  it('given a rebuild that fails midway, then the old rows and every index are left as they were', async () => {
    const before = await indexes(pool);
    const rows = await dumpReadModels(models, projections);
    const audit = projections.find((p) => p.name === 'audit')!;
    let batches = 0;
    const failing: Projection = {
      ...audit,
      async applyBatch(sql, items, span) {
        if (++batches === 3) throw new Error('disk full');
        await audit.applyBatch!(sql, items, span);
      },
    };
    await expect(rebuildProjection(store, models, failing, undefined, 7)).rejects.toThrow('disk full');
    expect(await indexes(pool)).toEqual(before);
    expect(await dumpReadModels(models, projections)).toEqual(rows);
  });

  it('given audit writes that fail while left in flight, then the rebuild fails with their error, writes nothing, and the same instance rebuilds whole afterwards', async () => {
    const rows = await dumpReadModels(models, projections);
    const audit = projections.find((p) => p.name === 'audit')!;
    await whileAuditWritesRefused(() => expect(rebuildProjection(store, models, audit, undefined, 7)).rejects.toThrow('audit write refused'));
    expect(await dumpReadModels(models, projections)).toEqual(rows);
    await rebuildProjection(store, models, audit, undefined, 7);
    expect(await dumpReadModels(models, projections)).toEqual(rows);
  });

  it('given in-flight writes that fail before the next page starts (a loaded machine), then the rebuild fails with the first failure, not the aborted transaction', async () => {
    const rows = await dumpReadModels(models, projections);
    const audit = projections.find((p) => p.name === 'audit')!;
    // Each page waits until the writes it left in flight have finished, as a busy machine
    // may let them: the page after a failed write then starts with its failure already known.
    const slow: Projection = {
      ...audit,
      async applyBatch(sql, items, span) {
        const sent: Promise<unknown>[] = [];
        const watched = { query: ((text: string, params?: readonly unknown[]) => track(sent, sql.query(text, params))) as typeof sql.query };
        await audit.applyBatch!(watched, items, span);
        await Promise.allSettled(sent);
      },
    };
    await whileAuditWritesRefused(() => expect(rebuildProjection(store, models, slow, undefined, 7)).rejects.toThrow('audit write refused'));
    expect(await dumpReadModels(models, projections)).toEqual(rows);
  });
});

/** Runs `work` while an audit write past the 40th entry fails ('audit write refused'). */
const whileAuditWritesRefused = async (work: () => Promise<void>) => {
  await pool.query(`CREATE FUNCTION test_audit_boom() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF (SELECT count(*) FROM rm_audit_nodes) > 40 THEN RAISE EXCEPTION 'audit write refused'; END IF; RETURN NULL; END $$`);
  await pool.query('CREATE TRIGGER test_audit_boom AFTER INSERT ON rm_audit_nodes FOR EACH STATEMENT EXECUTE FUNCTION test_audit_boom()');
  try {
    await work();
  } finally {
    await pool.query('DROP TRIGGER test_audit_boom ON rm_audit_nodes');
    await pool.query('DROP FUNCTION test_audit_boom()');
  }
};

const track = <T>(sent: Promise<unknown>[], p: Promise<T>): Promise<T> => {
  sent.push(p.catch(() => undefined));
  return p;
};
