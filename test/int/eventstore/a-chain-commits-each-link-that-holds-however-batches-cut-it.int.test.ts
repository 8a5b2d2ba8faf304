import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BATCH } from '../../../adapters/eventstore/postgres-group-commit.ts';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import type { AppendRow } from '../../../domain/ports/append-rows.ts';
import type { AppendResult, AppendUnit, ExpectedRevision } from '../../../domain/ports/event-store.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * A chain (`appendChain`) commits exactly its links up to the first that fails, wherever the
 * group committer cuts its queue into batches (at most 256 items each): a link whose
 * predecessor committed in the batch before is written, not refused. Its callers hear their
 * verdicts a turn later than the next batch is cut, so the predecessor's outcome, which that
 * batch reads, must be known at once. Links fail in each way a unit can: a stale revision (a
 * conflict), a key row gone (rejected alone), an inline model's error (the batch run again
 * unit by unit); every link after a failed one is answered a conflict and writes nothing.
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 8);
  store = await postgresEventStore(pool, {
    inline: {
      handles: (type) => type === 'Poison',
      fragments: () => Promise.reject(new Error('poisoned inline model')),
    },
  });
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

type Failure = 'stale' | 'gone' | 'poison';
interface Spec {
  readonly length: number;
  readonly fails: { readonly at: number; readonly how: Failure } | null;
}

/** A key row the append must lock that does not exist: its unit is rejected alone. */
const goneKey = (): AppendRow => {
  const id = randomUUID();
  return { kind: 'data_key_used', id, row: [id] };
};

/** A chain on a fresh stream, each link expecting the revision the one before leaves, but the failing one. */
const chainOf = (stream: string, spec: Spec): AppendUnit[] =>
  Array.from({ length: spec.length }, (_, i) => {
    const how = spec.fails?.at === i ? spec.fails.how : null;
    const expected: ExpectedRevision = how === 'stale' ? i + 5 : i === 0 ? 'no_stream' : i - 1;
    return { stream, events: [ev(how === 'poison' ? 'Poison' : 'Linked')], expected, ...(how === 'gone' ? { rows: [goneKey()] } : {}) };
  });

/** What each link must be answered: committed up to the failing link, its own failure there, a conflict after. */
const expectedOutcomes = (spec: Spec) =>
  Array.from({ length: spec.length }, (_, i) =>
    spec.fails === null || i < spec.fails.at
      ? 'committed'
      : i > spec.fails.at
        ? 'conflict'
        : { stale: 'conflict', gone: 'AppendRowTaken', poison: 'Error' }[spec.fails.how],
  );

const outcomeOf = (p: Promise<AppendResult>) =>
  p.then(
    (r) => (E.isRight(r) ? 'committed' : 'conflict'),
    (e: Error) => e.constructor.name,
  );

const spec: fc.Arbitrary<Spec> = fc.integer({ min: 1, max: 4 }).chain((length) =>
  fc.record({
    length: fc.constant(length),
    fails: fc.option(fc.record({ at: fc.integer({ min: 0, max: length - 1 }), how: fc.constantFrom<Failure>('stale', 'gone', 'poison') }), { freq: 2 }),
  }),
);

describe('a chain cut anywhere by the batches', () => {
  it('commits each link up to the first that fails and nothing after it, and each committed link is where its answer says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: MAX_BATCH - 8, max: MAX_BATCH + 2 }), fc.array(spec, { minLength: 1, maxLength: 4 }), async (fillers, specs) => {
        // The lead is taken into a batch of its own at once; the fillers and the chains queue
        // behind it in this order, so the next batch's cut falls among the chains' links.
        const lead = store.append(`lead:${randomUUID()}`, [ev()], 'no_stream');
        const filled = Array.from({ length: fillers }, () => store.append(`filler:${randomUUID()}`, [ev()], 'no_stream'));
        const streams = specs.map(() => `chain:${randomUUID()}`);
        const chains = specs.map((s, i) => store.appendChain(chainOf(streams[i]!, s)));
        // Every answer is listened to at once: a link rejected while an earlier chain is checked is not left unhandled.
        const heard = chains.map((c) => Promise.all(c.map(outcomeOf)));
        expect(E.isRight(await lead)).toBe(true);
        expect((await Promise.all(filled)).every(E.isRight)).toBe(true);

        for (const [i, s] of specs.entries()) {
          expect(await heard[i], JSON.stringify({ fillers, spec: s })).toEqual(expectedOutcomes(s));
          const written = await store.readStream(streams[i]!);
          const committed = expectedOutcomes(s).filter((o) => o === 'committed').length;
          expect(written.map((e) => e.revision)).toEqual(Array.from({ length: committed }, (_, r) => r));
          for (const [r, answer] of chains[i]!.slice(0, committed).entries()) {
            const a = await answer;
            expect(E.isRight(a) && a.right).toEqual({ nextExpectedRevision: r, position: written[r]!.position });
          }
        }
      }),
      {
        numRuns: 12,
        // Always among them: a chain whose first link ends a batch and whose others start the next, each holding.
        examples: [[MAX_BATCH - 1, [{ length: 3, fails: null }]]],
      },
    );
  }, 120_000);
});
