import { randomBytes, randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardFailed, type AdmissionGuard } from '../../../domain/ports/admission-guard.ts';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import type { AppendRow } from '../../../domain/ports/append-rows.ts';
import type { AppendResult } from '../../../domain/ports/event-store.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * The group committer's guarded append (the guards' checks and counts in custodian_commit, with
 * the units): a guard that holds commits its count and its append together; one that fails
 * writes nothing — its count not moved, its append not made — and the appends beside it in the
 * batch are made as usual.
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 8);
  store = await postgresEventStore(pool, {});
  await postgresKeystore(pool, randomBytes(32));
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
});

/** A job and tenant stream at revision 0, and a call counted `n` times: a guard for its next request holds. */
const call = async (n: number) => {
  const id = randomUUID();
  const jobStream = `job:t:${id}`;
  const tenantStream = `tenant:${id}`;
  expect(E.isRight(await store.append(jobStream, [ev()], 'no_stream'))).toBe(true);
  expect(E.isRight(await store.append(tenantStream, [ev()], 'no_stream'))).toBe(true);
  await pool.query('INSERT INTO custodian_call_requests (call, n) VALUES ($1, $2)', [id, n]);
  // Frozen: the store answers what became of a guard and never writes to it (a write would throw).
  const guard = (over: Partial<AdmissionGuard> = {}): AdmissionGuard =>
    Object.freeze({
      call: id,
      index: n + 1,
      tenant: 't',
      jobStream,
      jobRevision: 0,
      blockRevisions: [],
      marks: '',
      tenantStream,
      tenantRevision: 0,
      requestKey: null,
      ...over,
    });
  return { id, guard };
};

/** A data key that exists, as a row a put's append locks (`data_key_used`): it makes the batch a transaction. */
const liveKey = async (): Promise<AppendRow> => {
  const id = randomUUID();
  await pool.query(
    "INSERT INTO custodian_data_keys (key_id, tenant, plugin, scope, record_key, owner, wrapped) VALUES ($1::uuid, 't', 'p', 's', $2, 'tenant', '\\x00')",
    [id, id],
  );
  return Object.freeze({ kind: 'data_key_used', id, row: Object.freeze([id]) });
};

const countOf = async (id: string) => (await pool.query<{ n: number }>('SELECT n FROM custodian_call_requests WHERE call = $1', [id])).rows[0]!.n;
const guardedAppend = (guard: AdmissionGuard, stream: string) => store.append(stream, [ev(), ev()], 'no_stream', { guard });

describe('the guarded append', () => {
  it('commits a held guard with its count and its append; a failed one beside it writes nothing', async () => {
    const a = await call(0);
    const b = await call(4);
    const [streamA, streamB, streamC] = [`a:${randomUUID()}`, `b:${randomUUID()}`, `c:${randomUUID()}`];
    const guardA = a.guard();
    // Decided before the job's stream moved on: the guard must fail.
    const guardB = b.guard({ jobRevision: -1 });
    const [first, ...rest] = await Promise.allSettled([
      store.append(`lead:${randomUUID()}`, [ev()], 'no_stream'),
      guardedAppend(guardA, streamA),
      guardedAppend(guardB, streamB),
      store.append(streamC, [ev()], 'no_stream'),
    ]);
    expect(first.status).toBe('fulfilled');
    const [okA, failedB, okC] = rest;
    expect(okA.status === 'fulfilled' && E.isRight(okA.value) && okA.value.right.nextExpectedRevision === 1).toBe(true);
    expect(failedB.status === 'rejected' && failedB.reason instanceof GuardFailed).toBe(true);
    expect(okC.status === 'fulfilled' && E.isRight(okC.value)).toBe(true);

    // The answer says the guard was counted: its request's later appends go without it.
    expect(okA.status === 'fulfilled' && E.isRight(okA.value) && okA.value.right.guardCounted).toBe(true);
    expect(await countOf(a.id)).toBe(1);
    expect(await countOf(b.id)).toBe(4);
    expect((await store.readStream(streamA)).map((e) => e.revision)).toEqual([0, 1]);
    expect(await store.readStream(streamB)).toEqual([]);
    expect(await store.readStream(streamC)).toHaveLength(1);
  });

  it('fails a guard whose index does not follow on from the count, or whose request key already wrote', async () => {
    const skipped = await call(3);
    await expect(guardedAppend(skipped.guard({ index: 5 }), `skip:${randomUUID()}`)).rejects.toBeInstanceOf(GuardFailed);
    expect(await countOf(skipped.id)).toBe(3);

    const keyed = await call(0);
    const rk = `rk-${randomUUID()}`;
    await pool.query("INSERT INTO rm_request_keys (tenant, request_key, plugin, scope, key, version) VALUES ('t', $1, 'p', 's', 'k', 1)", [rk]);
    await expect(guardedAppend(keyed.guard({ requestKey: rk }), `keyed:${randomUUID()}`)).rejects.toBeInstanceOf(GuardFailed);
    expect(await countOf(keyed.id)).toBe(0);
  });

  it('answers a held guard whose append meets a wrong revision with its conflict, the request counted', async () => {
    const a = await call(0);
    const stream = `taken:${randomUUID()}`;
    expect(E.isRight(await store.append(stream, [ev()], 'no_stream'))).toBe(true);
    const answer = await guardedAppend(a.guard(), stream);
    expect(E.isLeft(answer) && answer.left.actual === 0).toBe(true);
    expect(await countOf(a.id)).toBe(1);
    expect(await store.readStream(stream)).toHaveLength(1);
  });

  it('commits a guard with no append alone: true and counted when it holds, false and not counted when not', async () => {
    const a = await call(0);
    const b = await call(0);
    const [held, failed] = await Promise.all([store.guardAlone(a.guard()), store.guardAlone(b.guard({ tenantRevision: 5 }))]);
    expect(held).toBe(true);
    expect(failed).toBe(false);
    expect(await countOf(a.id)).toBe(1);
    expect(await countOf(b.id)).toBe(0);
  });

  it('answers a failed guard with no append false even when its batch commits an append with a key row beside it', async () => {
    const a = await call(0);
    const b = await call(2);
    const key = await liveKey();
    const stream = `keyed:${randomUUID()}`;
    const [lead, appended, held, failed] = await Promise.all([
      store.append(`lead:${randomUUID()}`, [ev()], 'no_stream'),
      // A key row beside it: the failed guard's unit and the keyed unit are judged apart in one call.
      store.append(stream, [ev()], 'no_stream', { rows: [key] }),
      store.guardAlone(a.guard()),
      store.guardAlone(b.guard({ jobRevision: 7 })),
    ]);
    expect(E.isRight(lead) && E.isRight(appended)).toBe(true);
    expect([held, failed]).toEqual([true, false]);
    expect(await countOf(a.id)).toBe(1);
    expect(await countOf(b.id)).toBe(2);
    expect(await store.readStream(stream)).toHaveLength(1);
  });

  it.each([
    ['with key rows (positions taken with BEGIN)', true],
    ['with none (the statement alone takes them before its count moves)', false],
  ])('keeps position order the order of transaction ids while two committers append guarded batches %s', async (_, withRows) => {
    const pool2 = createPool(db.url, 8);
    const store2 = await postgresEventStore(pool2, {});
    try {
      const head = (await pool.query<{ p: string }>('SELECT coalesce(max(position), 0) AS p FROM custodian_events')).rows[0]!.p;
      const calls = await Promise.all(Array.from({ length: 40 }, () => call(0)));
      const answers = await Promise.all(
        calls.map(async (c, i) =>
          (i % 2 === 0 ? store : store2).append(`both:${randomUUID()}`, [ev()], 'no_stream', {
            guard: c.guard(),
            rows: withRows ? [await liveKey()] : [],
          }),
        ),
      );
      expect(answers.every(E.isRight)).toBe(true);
      // Readers stop below the oldest running xid: a lower position under a newer xid could be passed over.
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM custodian_events a JOIN custodian_events b ON a.position < b.position AND a.tx_id > b.tx_id
         WHERE a.position > $1 AND b.position > $1`,
        [head],
      );
      expect(rows[0]!.n).toBe(0);
    } finally {
      await store2.close();
      await pool2.end();
    }
  });

  it('counts a call once when two of its requests in one batch follow on from the count', async () => {
    const a = await call(0);
    const [s1, s2] = [`one:${randomUUID()}`, `two:${randomUUID()}`];
    const [, first, second] = await Promise.all([
      store.append(`lead:${randomUUID()}`, [ev()], 'no_stream'),
      guardedAppend(a.guard({ index: 1 }), s1),
      guardedAppend(a.guard({ index: 2 }), s2),
    ]);
    expect(E.isRight(first) && E.isRight(second)).toBe(true);
    expect(await countOf(a.id)).toBe(2);
  });
});

/*
 * A chain of units appended to one stream (`appendChain`), each with its own guard and key rows:
 * no unit commits after one that did not; a unit that wrote nothing has its guard neither
 * counted nor spent (its command, decided again, carries it again and is counted once); a guard
 * that was counted is answered counted (never counted twice); a row that conflicts fails only its
 * own unit and the ones after it.
 */
/** A key row the append must lock that does not exist (shredded elsewhere): its unit fails with `AppendRowTaken`. */
const goneKey = (): AppendRow => {
  const id = randomUUID();
  return Object.freeze({ kind: 'data_key_used', id, row: Object.freeze([id]) });
};
/** Whether each answer said the guard its unit carried was counted. */
const counted = (answers: readonly Promise<AppendResult>[]) =>
  Promise.all(
    answers.map((p) =>
      p.then(
        (r) => (E.isRight(r) ? r.right.guardCounted : r.left.guardCounted) === true,
        () => false,
      ),
    ),
  );
const settled = (answers: readonly Promise<AppendResult>[]) =>
  Promise.all(
    answers.map((p) =>
      p.then(
        (r) => (E.isRight(r) ? 'committed' : 'conflict'),
        (e: Error) => e.constructor.name,
      ),
    ),
  );

describe('a chain of guarded units', () => {
  it('commits the units before a unit whose key row is gone, and none after it: a later unit’s guard is neither counted nor spent', async () => {
    const [x, y, z] = [await call(0), await call(0), await call(0)];
    const [gx, gy, gz] = [x.guard(), y.guard(), z.guard()];
    const s = `chain:${randomUUID()}`;
    const answers = store.appendChain([
      { stream: s, events: [ev()], expected: 'no_stream', guard: gx, rows: [await liveKey()] },
      { stream: s, events: [ev()], expected: 0, guard: gy, rows: [goneKey()] },
      { stream: s, events: [ev()], expected: 1, guard: gz, rows: [await liveKey()] },
    ]);
    // The second unit's guard fails with its row (its request is admitted again in full); the third was never tried.
    expect(await settled(answers)).toEqual(['committed', 'GuardFailed', 'conflict']);
    expect((await store.readStream(s)).length).toBe(1);
    expect([await countOf(x.id), await countOf(y.id), await countOf(z.id)]).toEqual([1, 0, 0]);
    expect(await counted(answers)).toEqual([true, false, false]);
    // Decided again, the third unit carries its guard again and is counted once.
    const again = await store.append(s, [ev()], 0, { guard: gz });
    expect(E.isRight(again) && again.right.guardCounted).toBe(true);
    expect(await countOf(z.id)).toBe(1);
  });

  it('writes nothing of a chain whose first unit’s guard fails, and counts the units after it at most once', async () => {
    const [x, y] = [await call(0), await call(0)];
    const gx = x.guard({ jobRevision: 7 });
    const gy = y.guard();
    const s = `chain:${randomUUID()}`;
    const answers = store.appendChain([
      { stream: s, events: [ev()], expected: 'no_stream', guard: gx, rows: [await liveKey()] },
      { stream: s, events: [ev()], expected: 0, guard: gy, rows: [await liveKey()] },
    ]);
    const outcome = await settled(answers);
    expect(outcome[0]).toBe('GuardFailed');
    expect(outcome[1]).toBe('conflict');
    expect(await store.readStream(s)).toEqual([]);
    // The second unit's guard was counted exactly when its answer says so; decided again, it carries it only if not.
    const [, gyCounted] = await counted(answers);
    expect(await countOf(y.id)).toBe(gyCounted ? 1 : 0);
    expect(E.isRight(await store.append(s, [ev()], 'no_stream', { guard: gyCounted ? null : gy }))).toBe(true);
    expect(await countOf(y.id)).toBe(1);
  });

  it('commits no unit after one whose stream another writer moved by exactly its length, and counts none of their guards', async () => {
    const [x, y] = [await call(0), await call(0)];
    const [gx, gy] = [x.guard(), y.guard()];
    const s = `chain:${randomUUID()}`;
    await store.append(s, [ev()], 'no_stream');
    await store.append(s, [ev()], 0);
    const answers = store.appendChain([
      { stream: s, events: [ev()], expected: 0, guard: gx, rows: [await liveKey()] },
      { stream: s, events: [ev()], expected: 1, guard: gy, rows: [await liveKey()] },
    ]);
    expect(await settled(answers)).toEqual(['conflict', 'conflict']);
    expect((await store.readStream(s)).length).toBe(2);
    const heard = await counted(answers);
    expect([await countOf(x.id), await countOf(y.id)]).toEqual(heard.map((c) => (c ? 1 : 0)));
  });
});
