import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../../adapters/postgres/pool.ts';
import type { DomainEvent } from '../../../domain/events/registry.ts';
import type { RecordedEvent } from '../../../domain/ports/event-store.ts';
import type { Sealer } from '../../../domain/ports/sealer.ts';
import { dedupeDigestsProjection } from '../../../projections/dedupe-digests.ts';
import { fused, type UnitEvent } from '../../../projections/fragments.ts';
import { recordsProjection } from '../../../projections/records.ts';
import { retentionProjection } from '../../../projections/retention.ts';
import { freshDatabase } from '../../support/database.ts';

/**
 * The inline models are written in their commit's one statement, whose CTEs do not see each
 * other's writes, before anyone knows which units commit. Whatever the batch holds — a record
 * written, removed and written again under the same key, renewals asked and answered, holds
 * placed and released, units that did not commit between — the models must be left exactly as
 * `apply`, one committed event after another, leaves them.
 */

/** Opens a "sealed" digest as its own text: the models, not the sealing, are under test here. */
const sealer: Sealer = {
  seal: () => {
    throw new Error('nothing is sealed here');
  },
  open: async (_where, _purpose, sealed) => sealed.c,
  dedupeDigest: () => {
    throw new Error('nothing is digested here');
  },
};
const models = [recordsProjection, dedupeDigestsProjection(sealer), retentionProjection];
const TABLES = ['rm_record_versions', 'rm_records', 'rm_request_keys', 'rm_dedupe_digests', 'rm_renewals', 'rm_holds'];
const where = { tenant: 't1', plugin: 'notes', scope: 'project:x' };
const KEYS = ['a', 'b'];

type Kind = 'write' | 'remove' | 'renew' | 'place' | 'release';
interface Step {
  readonly kind: Kind;
  readonly slot: number;
  readonly digest: boolean;
  /** Its unit commits (1 or 2) or not (3 or 4). */
  readonly unit: number;
}

/** The world the committed events left: each key's version (0: none), the holds in force. */
interface World {
  versions: Map<string, number>;
  holds: Set<string>;
  n: number;
}

/** The event a step makes on the world (null: it does not apply there), and the world after it. */
const eventOf = (step: Step, w: World): DomainEvent | null => {
  const key = KEYS[step.slot]!;
  const hold = `h${step.slot}`;
  const version = w.versions.get(key) ?? 0;
  const n = ++w.n;
  switch (step.kind) {
    case 'write':
      return {
        type: 'RecordVersionWritten',
        data: {
          ...where,
          key,
          version: version + 1,
          body: { k: 'k', n: 'n', c: `body ${n}` },
          body_bytes: n,
          kind: 'note',
          state: 'active',
          supersedes: null,
          ends_at: 4_000_000_000_000 + n,
          subject_kind: 'work',
          closed: false,
          purpose: 'routine:test',
          labels: [`l${n}`],
          created_ms: 1_700_000_000_000 + n,
          writer: { job: 'j', run: 1, call: 'c', step: n, agent: 'ag', plugin: 'notes', tainted: false },
          data_subject: null,
          request_key: `rk${n}`,
          dedupe: step.digest ? { k: 'k', n: 'n', c: `digest ${n}` } : null,
        },
      } as DomainEvent;
    case 'remove':
      return version === 0 ? null : ({ type: 'RecordRemoved', data: { ...where, key, reason: 'erasure', removed_ms: n } } as DomainEvent);
    case 'renew':
      return version === 0 ? null : ({ type: 'RenewalRequested', data: { ...where, key, version, ends_at: n, requested_ms: n } } as DomainEvent);
    case 'place':
      return w.holds.has(hold)
        ? null
        : ({ type: 'HoldPlaced', data: { tenant: 't1', hold, selector: { plugin: 'notes' }, reason: `r${n}`, placed_ms: n } } as DomainEvent);
    case 'release':
      return w.holds.has(hold) ? ({ type: 'HoldReleased', data: { tenant: 't1', hold, released_ms: n } } as DomainEvent) : null;
  }
};

const evolveWorld = (w: World, e: DomainEvent) => {
  if (e.type === 'RecordVersionWritten') w.versions.set(e.data.key, e.data.version);
  if (e.type === 'RecordRemoved') w.versions.set(e.data.key, 0);
  if (e.type === 'HoldPlaced') w.holds.add(e.data.hold);
  if (e.type === 'HoldReleased') w.holds.delete(e.data.hold);
};

/**
 * The seed's events (all committed) and the batch's, each with its unit. A committed step
 * makes an event valid on what committed before it; a step of a unit that does not commit
 * makes one on that same world without moving it (it was decided there, and refused).
 */
const eventsOf = (seed: readonly Step[], batch: readonly Step[]) => {
  const w: World = { versions: new Map(), holds: new Set(), n: 0 };
  const made = (steps: readonly Step[], all: boolean): UnitEvent[] =>
    steps.flatMap((s) => {
      const event = eventOf(s, w);
      if (event === null) return [];
      if (all || s.unit <= 2) evolveWorld(w, event);
      return [{ unit: all ? 1 : s.unit, event }];
    });
  return { seed: made(seed, true), batch: made(batch, false) };
};

const step = fc.record({
  kind: fc.constantFrom<Kind>('write', 'write', 'remove', 'renew', 'place', 'release'),
  slot: fc.integer({ min: 0, max: 1 }),
  digest: fc.boolean(),
  unit: fc.integer({ min: 1, max: 4 }),
});

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 2);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const recorded = {} as RecordedEvent;

const oneAfterAnother = async (events: readonly UnitEvent[]) => {
  for (const { event } of events) for (const m of models) if (m.canHandle!.includes(event.type)) await m.apply(pool, event, recorded);
};

const asOneStatement = async (events: readonly UnitEvent[], committed: readonly number[]) => {
  const fragments = [];
  for (const m of models) {
    const mine = events.filter((e) => m.canHandle!.includes(e.event.type));
    if (mine.length > 0) fragments.push(...(await m.fragments!(mine)));
  }
  if (fragments.length === 0) return;
  const { text, params } = fused(fragments, { ctes: ['committed AS (SELECT unnest($1::int[]) AS unit)'], params: [committed], select: 'SELECT 1' });
  await pool.query(text, params);
};

const tables = async () => {
  const all: Record<string, unknown[]> = {};
  for (const t of TABLES) all[t] = (await pool.query(`SELECT * FROM ${t} ORDER BY 1, 2, 3, 4, 5`)).rows;
  return all;
};

const emptied = () => pool.query(`TRUNCATE ${TABLES.join(', ')}`);

describe('an inline batch, written in one statement, leaves what one committed event after another would', () => {
  it('for any seed and any batch of writes, removals, renewals and holds, some of whose units do not commit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 6 }), fc.array(step, { minLength: 1, maxLength: 14 }), async (seedSteps, batchSteps) => {
        const { seed, batch } = eventsOf(seedSteps, batchSteps);
        await emptied();
        await oneAfterAnother(seed);
        await oneAfterAnother(batch.filter((e) => e.unit <= 2));
        const expected = await tables();
        await emptied();
        await oneAfterAnother(seed);
        await asOneStatement(batch, [1, 2]);
        expect(await tables()).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});
