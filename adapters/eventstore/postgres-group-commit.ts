import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import type {
  AppendConditions,
  AppendUnit,
  AppendWith,
  Appended,
  ExpectedRevision,
  NewEvent,
  RecordedEvent,
  WrongExpectedRevision,
} from '../../domain/ports/event-store.ts';
import { WATCHED_STREAM_LOCK } from '../postgres/advisory-locks.ts';
import type { Sql } from '../../domain/ports/read-model.ts';
import { prepared } from '../postgres/prepared.ts';
import { GUARDED_APPEND, guardedAppendParams } from '../../queries/admission-guard.ts';
import { GuardFailed, type AdmissionGuard } from '../../domain/ports/admission-guard.ts';
import { AppendRowTaken, type AppendRow, type AppendRowKind } from '../../domain/ports/append-rows.ts';
import { appendRowStatement, byLockOrder } from '../postgres/append-row-sql.ts';
import { brokenLink } from './append-chain.ts';
import { asForeseen, foreseenRows, pipelined, type AppendedRow } from './foreseen-batch.ts';

/**
 * Read models kept inside the append's transaction (Marten's and Emmett's "inline
 * projections"): an answer that depends on them needs no wait for the projection runner,
 * and they can never disagree with the log.
 */
export interface InlineProjections {
  /** Whether events of this type touch the inline models; a batch with none commits as one statement. */
  handles(type: string): boolean;
  /** Runs in the append's transaction after its rows are written, before COMMIT, with the events appended. */
  apply(sql: Sql, events: readonly RecordedEvent[]): Promise<void>;
}

type Result = E.Either<WrongExpectedRevision, Appended>;

/** A statement that commits with the next batch (a request's count, say), answered after that COMMIT. */
interface Statement {
  readonly kind: 'statement';
  readonly text: string;
  readonly params: readonly unknown[];
  readonly resolve: (rows: unknown[]) => void;
  readonly reject: (e: unknown) => void;
}

/** A request admitted from the cache that appends nothing (a refusal): its guard commits alone. */
interface GuardOnly {
  readonly kind: 'guard';
  readonly guard: AdmissionGuard;
  readonly resolve: (held: boolean) => void;
  readonly reject: (e: unknown) => void;
}

type Queued = Pending | Statement | GuardOnly;

interface Pending {
  readonly kind: 'append';
  readonly stream: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
  /** The cached admission of the request this append belongs to, checked and counted in its transaction. */
  readonly guard: AdmissionGuard | null;
  /** Rows that commit with this append if it succeeds (a new record's data key). */
  readonly rows: readonly AppendRow[];
  /** Other streams it was decided on (see `AppendConditions`): such an append commits in a transaction of its own. */
  readonly conditions: AppendConditions | null;
  /** The unit before it in its chain (`appendChain`): this one commits only if that one did. */
  readonly after: Pending | null;
  /** How it ended, once it did. */
  outcome: 'committed' | 'failed' | null;
  readonly unit: AppendUnit;
  readonly resolve: (r: Result) => void;
  readonly reject: (e: unknown) => void;
}

/** A chained append committed while the one before it did not: the batch is rolled back and settled unit by unit. */
class ChainBroken extends Error {
  constructor() {
    super('a chained append would commit after its predecessor failed');
  }
}

/** Whether a chain's units are among these appends (then the batch commits only in a transaction it can roll back). */
const chained = (appends: readonly Pending[]) => {
  const here = new Set(appends);
  return appends.some((p) => p.after !== null && here.has(p.after));
};

/** Throws `ChainBroken` when an append of the batch succeeded but its predecessor in the same batch did not (before COMMIT). */
const assertChainsHold = (appends: readonly Pending[], results: readonly (Result | null)[]) => {
  const ok = new Map(appends.map((p, i) => [p, results[i] != null && E.isRight(results[i]!)]));
  for (const [p, committed] of ok) if (committed && p.after && ok.has(p.after) && !ok.get(p.after)) throw new ChainBroken();
};

type Row = AppendedRow;

const CALL = `SELECT idx, ok, first_position, last_revision, actual
  FROM custodian_append_many($1::text[], $2::text[], $3::int[], $4::uuid[], $5::text[], $6::int[], $7::jsonb[], $8::jsonb[])`;
/** The same from positions its transaction took with its BEGIN ($9). */
const CALL_FROM = `SELECT idx, ok, first_position, last_revision, actual
  FROM custodian_append_from($9::bigint, $1::text[], $2::text[], $3::int[], $4::uuid[], $5::text[], $6::int[], $7::jsonb[], $8::jsonb[])`;
const MAX_BATCH = 256;

/** A row of `GUARDED_APPEND`: the first carries the guards that held; `idx` is null when no append was made. */
interface GuardedRow {
  held: number[];
  idx: number | null;
  ok: boolean | null;
  first_position: number | null;
  last_revision: number | null;
  actual: number | null;
}

const expectedText = (expected: ExpectedRevision) => (typeof expected === 'number' ? String(expected) : expected);

const resultOf = (p: Pending, r: Row): Result =>
  r.ok
    ? E.right({ nextExpectedRevision: Number(r.last_revision), position: Number(r.first_position) + p.events.length - 1 })
    : E.left({ kind: 'wrong_expected_revision', stream: p.stream, expected: p.expected, actual: r.actual ?? 'no_stream' });

/**
 * Writes (or locks) the append rows of one kind in one statement, a column per parameter, and
 * answers the ids it wrote; a row not among them conflicted. Its query is sent when it is called.
 */
const rowsOfKind = async (client: pg.PoolClient, kind: AppendRowKind, ws: readonly AppendRow[]): Promise<Set<string>> => {
  const columns = ws[0]!.row.map((_, c) => ws.map((w) => w.row[c]));
  return new Set((await client.query<{ id: string }>(prepared(appendRowStatement(kind), columns))).rows.map((r) => r.id));
};

/**
 * Opens the batch's transaction and, when it appends, takes the positions of all its events
 * (and so its xid) in the same round trip, before anything in it writes (see eventstore-004):
 * the first position, or null.
 */
const begin = async (client: pg.PoolClient, events: number): Promise<number | null> => {
  if (events === 0) {
    await client.query('BEGIN');
    return null;
  }
  if (!Number.isSafeInteger(events) || events < 0) throw new Error(`cannot take ${events} positions`);
  const results = (await client.query(`BEGIN; SELECT custodian_allocate_positions(${events}) AS first`)) as unknown as pg.QueryResult<{ first: string }>[];
  return Number(results[1]!.rows[0]!.first);
};

const sqlOn = (client: pg.PoolClient): Sql => ({
  query: (async (text: string, params?: readonly unknown[]) =>
    params === undefined ? client.query(text) : client.query(prepared(text, params))) as Sql['query'],
});

/**
 * Group commit: appends that arrive while a transaction is committing queue, and one writer
 * drains the queue into the next transaction — one multi-stream statement, the inline read
 * models, one COMMIT. Each append is still checked against its own stream's expected revision;
 * one that meets a wrong revision gets its conflict back (its caller decides again) without
 * failing the rest, and each caller is answered only after the commit that holds its events.
 */
export const groupCommitter = (pool: pg.Pool, inline: InlineProjections | null) => {
  const queue: Queued[] = [];
  let writing = false;

  /** One transaction for the batch (or one statement alone): its statements first, then the appends with their inline models. */
  const write = async (
    statements: readonly Statement[],
    appends: readonly Pending[],
    guardOnly: readonly GuardOnly[],
  ): Promise<{ answers: unknown[][]; results: (Result | null)[]; held: Set<AdmissionGuard> }> => {
    const guards = [...appends.flatMap((p) => (p.guard ? [p.guard] : [])), ...guardOnly.map((g) => g.guard)];
    if (guards.length === 0) return { ...(await writeIn(statements, appends)), held: new Set() };
    return guarded(statements, appends, guards);
  };

  /**
   * A batch with cached admissions: the guards' checks and counts and the appends are
   * one statement (`GUARDED_APPEND`), which commits on its own when nothing else is written.
   */
  const guarded = async (
    statements: readonly Statement[],
    appends: readonly Pending[],
    guards: readonly AdmissionGuard[],
  ): Promise<{ answers: unknown[][]; results: (Result | null)[]; held: Set<AdmissionGuard> }> => {
    const ords = new Map(guards.map((g, i) => [g, i]));
    const params = (first: number | null) =>
      guardedAppendParams(
        guards,
        appends.map((p) => ({ guard: p.guard ? ords.get(p.guard)! : null, stream: p.stream, expected: expectedText(p.expected), events: p.events })),
        first,
      );
    const needsInline = inline !== null && appends.some((p) => p.events.some((e) => inline.handles(e.type)));
    // A statement alone commits on its own: never when a chain's units are in it (a broken one is rolled back).
    const alone = statements.length === 0 && !needsInline && appends.every((p) => p.rows.length === 0) && !chained(appends);
    let out: GuardedRow[];
    const answers: unknown[][] = [];
    const client = alone ? null : await pool.connect();
    try {
      if (client) {
        const foreseen = await writeAsForeseen(
          client,
          statements,
          appends,
          (first) => prepared(GUARDED_APPEND, params(first)),
          (rows) => {
            const out = rows as GuardedRow[];
            return out[0]?.held.length === guards.length;
          },
        );
        if (foreseen) return { ...foreseen, held: new Set(guards) };
      }
      if (!client) out = (await pool.query<GuardedRow>(prepared(GUARDED_APPEND, params(null)))).rows;
      else {
        // With nothing written before it, the statement takes the positions itself, before its count moves.
        const first = await begin(client, statements.length > 0 ? appends.reduce((n, p) => n + p.events.length, 0) : 0);
        for (const st of statements) answers.push((await client.query(prepared(st.text, st.params))).rows);
        out = (await client.query<GuardedRow>(prepared(GUARDED_APPEND, params(first)))).rows;
      }
      const held = new Set(out[0]!.held.map((i) => guards[i]!));
      // Appends whose guard failed have no row: their requests are admitted again in full.
      const byIdx = new Map(out.filter((r) => r.idx !== null).map((r) => [r.idx!, r as Row]));
      const results = appends.map((p, i) => (byIdx.has(i + 1) ? resultOf(p, byIdx.get(i + 1)!) : null));
      if (client) {
        assertChainsHold(appends, results);
        const rows = out.filter((r) => r.idx !== null) as Row[];
        await writeAppendRows(client, appends, rows);
        await applyInline(client, appends, rows);
        await client.query('COMMIT');
      }
      return { answers, results, held };
    } catch (error) {
      if (client) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client?.release();
    }
  };

  /**
   * A batch written as foreseen, in three round trips: BEGIN with its positions; then its
   * statements, its append statement (`appendQuery`), its appends' key rows and their inline
   * models all sent at once (pg's pipeline mode), the rows and models written as if every
   * append met its expected revision and every guard held; then COMMIT, only when the append
   * statement answered just that (`held`: the guards' part of it) and every key row was written.
   * Anything else — a conflict, a guard that no longer holds, a key row another writer made
   * first, an error — rolls the transaction back whole and answers null: the batch is then
   * written step by step, where each of those has its own answer. Null as well when the
   * batch's rows cannot be foreseen (`foreseenRows`).
   */
  const writeAsForeseen = async (
    client: pg.PoolClient,
    statements: readonly Statement[],
    appends: readonly Pending[],
    appendQuery: (first: number | null) => pg.QueryConfig | null,
    held: (rows: readonly unknown[]) => boolean,
  ): Promise<{ answers: unknown[][]; results: Result[] } | null> => {
    if (foreseenRows(appends, 0) === null) return null;
    const events = appends.reduce((n, p) => n + p.events.length, 0);
    const first = await begin(client, events);
    const foreseen = first === null ? [] : foreseenRows(appends, first)!;
    const query = appendQuery(first);
    const made = appends.flatMap((p) => p.rows);
    const written = await pipelined(
      client,
      () => {
        const sent = statements.map((st) => client.query(prepared(st.text, st.params)).then((r) => r.rows as unknown[]));
        const appended = query ? client.query(query).then((r) => r.rows as unknown[]) : Promise.resolve([] as unknown[]);
        // By id, as `writeAppendRows` checks: two appends may name one key (one row answered).
        const keyRows = byLockOrder(made).map(([kind, ws]) => rowsOfKind(client, kind, ws).then((written) => ws.every((w) => written.has(w.id))));
        const models = applyInline(client, appends, foreseen);
        return Promise.allSettled([Promise.all(sent), appended, Promise.all(keyRows), models]);
      },
      // Every part fulfilled: every query was answered. One rejected: some sent after it may not be yet.
      (settled) => settled.every((s) => s.status === 'fulfilled'),
    );
    const [answers, appended, keyRows, models] = written;
    const wrote =
      answers.status === 'fulfilled' &&
      appended.status === 'fulfilled' &&
      keyRows.status === 'fulfilled' &&
      models.status === 'fulfilled' &&
      keyRows.value.every(Boolean) &&
      asForeseen(appended.value as Row[], foreseen) &&
      held(appended.value);
    if (!wrote) {
      await client.query('ROLLBACK');
      return null;
    }
    await client.query('COMMIT');
    return { answers: answers.value, results: appends.map((p, i) => resultOf(p, foreseen[i]!)) };
  };

  /**
   * The rows of the appends made (`rows`: by 1-based index into `batch`), after them in their
   * transaction: a row that conflicts (its record's key made first by another writer) fails the
   * whole batch, which is then written append by append, that one refused with `AppendRowTaken`.
   */
  const writeAppendRows = async (client: pg.PoolClient, batch: readonly Pending[], rows: readonly Row[]) => {
    const made = rows.flatMap((r) => (r.ok ? batch[r.idx - 1]!.rows : []));
    for (const [kind, ws] of byLockOrder(made)) {
      const written = await rowsOfKind(client, kind, ws);
      const missing = ws.filter((w) => !written.has(w.id));
      for (const w of missing) w.failed?.();
      if (missing.length > 0) throw new AppendRowTaken();
    }
  };

  /** The inline models of the appends made (`rows`: custodian_append_many's, by 1-based index into `batch`). */
  const applyInline = async (client: pg.PoolClient, batch: readonly Pending[], rows: readonly Row[]) => {
    if (inline === null) return;
    const now = Date.now();
    const recorded: RecordedEvent[] = [];
    for (const r of rows) {
      if (!r.ok) continue;
      const p = batch[r.idx - 1]!;
      p.events.forEach((e, i) => {
        if (inline.handles(e.type))
          recorded.push({
            ...e,
            stream: p.stream,
            revision: Number(r.last_revision) - p.events.length + 1 + i,
            position: Number(r.first_position) + i,
            recorded_at: now,
          });
      });
    }
    if (recorded.length > 0) await inline.apply(sqlOn(client), recorded);
  };

  /** The batch's statements and appends (none with a guard) in one transaction, or on their own. */
  const writeIn = async (statements: readonly Statement[], batch: readonly Pending[]): Promise<{ answers: unknown[][]; results: Result[] }> => {
    const flat = batch.flatMap((p) => p.events);
    const args = [
      batch.map((p) => p.stream),
      batch.map((p) => expectedText(p.expected)),
      batch.map((p) => p.events.length),
      flat.map((e) => e.event_id),
      flat.map((e) => e.type),
      flat.map((e) => e.schema_version),
      flat.map((e) => JSON.stringify(e.data)),
      flat.map((e) => JSON.stringify(e.metadata)),
    ];
    const needsInline = inline !== null && flat.some((e) => inline.handles(e.type));
    let rows: Row[] = [];
    const answers: unknown[][] = [];
    const withRows = batch.some((p) => p.rows.length > 0);
    if (!needsInline && !withRows && !chained(batch) && statements.length + (batch.length > 0 ? 1 : 0) === 1) {
      // One statement commits on its own.
      if (batch.length > 0) rows = (await pool.query<Row>(prepared(CALL, args))).rows;
      else answers.push((await pool.query(prepared(statements[0]!.text, statements[0]!.params))).rows);
    } else if (statements.length + batch.length > 0) {
      const client = await pool.connect();
      try {
        const foreseen = await writeAsForeseen(
          client,
          statements,
          batch,
          (first) => (first === null ? null : prepared(CALL_FROM, [...args, first])),
          () => true,
        );
        if (foreseen) return foreseen;
        // With no statement before it, the append takes its positions first itself.
        const first = await begin(client, statements.length > 0 ? flat.length : 0);
        for (const st of statements) answers.push((await client.query(prepared(st.text, st.params))).rows);
        if (batch.length > 0) rows = (await client.query<Row>(first === null ? prepared(CALL, args) : prepared(CALL_FROM, [...args, first]))).rows;
        rows.sort((a, b) => a.idx - b.idx);
        assertChainsHold(
          batch,
          rows.map((r, i) => resultOf(batch[i]!, r)),
        );
        if (withRows) await writeAppendRows(client, batch, rows);
        if (needsInline) await applyInline(client, batch, rows);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }
    const results = rows.sort((a, b) => a.idx - b.idx).map((r, i) => resultOf(batch[i]!, r));
    return { answers, results };
  };

  /**
   * An append decided on other streams, in a transaction of its own: the advisory locks first
   * (they take no transaction id, so its positions are still taken before anything writes), then
   * the streams it was decided on checked, then the append. A watched stream's appends hold the
   * lock exclusively, conditioned ones share it: the two never interleave, and whichever takes
   * it first has both the lower positions and the earlier commit.
   */
  const writeConditioned = async (p: Pending): Promise<Result> => {
    const c = p.conditions!;
    const unmoved = c.unmoved ?? [];
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      if (c.watched) await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [WATCHED_STREAM_LOCK, p.stream]);
      // In one stable order, so two conditioned appends never wait on each other the wrong way round.
      const watched = [...new Set(unmoved.map((u) => u.stream))].sort();
      if (watched.length > 0)
        await client.query('SELECT pg_advisory_xact_lock_shared($1, hashtext(s)) FROM unnest($2::text[]) AS s ORDER BY s', [WATCHED_STREAM_LOCK, watched]);
      if (unmoved.length > 0) {
        const { rows } = await client.query<{ stream: string; revision: string }>(
          'SELECT stream, revision::text FROM custodian_streams WHERE stream = ANY($1::text[])',
          [watched],
        );
        const actual = new Map(rows.map((r) => [r.stream, Number(r.revision)]));
        const moved = unmoved.find((u) => (actual.get(u.stream) ?? 'no_stream') !== u.revision);
        if (moved) {
          await client.query('ROLLBACK');
          return E.left({ kind: 'wrong_expected_revision', stream: moved.stream, expected: moved.revision, actual: actual.get(moved.stream) ?? 'no_stream' });
        }
      }
      const first = Number((await client.query<{ first: string }>('SELECT custodian_allocate_positions($1) AS first', [p.events.length])).rows[0]!.first);
      const flat = p.events;
      const args = [
        [p.stream],
        [expectedText(p.expected)],
        [flat.length],
        flat.map((e) => e.event_id),
        flat.map((e) => e.type),
        flat.map((e) => e.schema_version),
        flat.map((e) => JSON.stringify(e.data)),
        flat.map((e) => JSON.stringify(e.metadata)),
        first,
      ];
      const rows = (await client.query<Row>(prepared(CALL_FROM, args))).rows;
      if (p.rows.length > 0) await writeAppendRows(client, [p], rows);
      await applyInline(client, [p], rows);
      await client.query('COMMIT');
      return resultOf(p, rows[0]!);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  const settleConditioned = async (p: Pending) => {
    try {
      const r = await writeConditioned(p);
      if (E.isRight(r))
        for (const w of p.rows) {
          w.written = true;
          w.committed();
        }
      p.resolve(r);
    } catch (error) {
      p.reject(error);
    }
  };

  const settle = async (all: readonly Queued[]): Promise<void> => {
    // A chained unit whose predecessor ended without committing writes nothing (it is decided again).
    const here = new Set(all);
    const broken = (q: Queued) => q.kind === 'append' && q.after !== null && !here.has(q.after) && q.after.outcome !== 'committed';
    for (const q of all)
      if (broken(q)) {
        const p = q as Pending;
        // Its guard was never checked: the command, decided again, carries it again.
        if (p.guard) p.guard.claimed = false;
        p.resolve(brokenLink(p.unit, p.after!.unit));
      }
    const batch = all.filter((q) => !broken(q));
    if (batch.length === 0) return;
    const statements = batch.filter((q): q is Statement => q.kind === 'statement');
    const appends = batch.filter((q): q is Pending => q.kind === 'append');
    const guardOnly = batch.filter((q): q is GuardOnly => q.kind === 'guard');
    try {
      const { answers, results, held } = await write(statements, appends, guardOnly);
      // Counted and admitted: a later append of the same request (a conflict decided again) carries no guard.
      for (const g of held) g.consumed = true;
      statements.forEach((st, i) => st.resolve(answers[i]!));
      appends.forEach((p, i) => {
        const r = results[i];
        if (r && E.isRight(r))
          for (const w of p.rows) {
            w.written = true;
            w.committed();
          }
        if (r) p.resolve(r);
        else p.reject(new GuardFailed());
      });
      guardOnly.forEach((g) => g.resolve(held.has(g.guard)));
    } catch (error) {
      // One bad append or statement (or a deadlock with another process) must not fail the others: alone, each gets its own answer.
      if (batch.length === 1) {
        const q = batch[0]!;
        // A cached admission's transaction rolled back uncounted: the request is admitted again in full (and then finds the key).
        return q.reject(error instanceof AppendRowTaken && q.kind === 'append' && q.guard ? new GuardFailed() : error);
      }
      for (const q of batch) await settle([q]);
    }
  };

  /**
   * Queues one unit. Only a request's first append carries its guard (a later one of the same
   * request, decided again after a conflict, finds it claimed or consumed); an append with
   * conditions never does. Rows a commit already holds are not written again.
   */
  const enqueue = (unit: AppendUnit, after: Pending | null): { pending: Pending; answer: Promise<Result> } => {
    const { conditions } = unit;
    const conditioned = conditions && (conditions.watched || (conditions.unmoved?.length ?? 0) > 0) ? conditions : null;
    const found = unit.guard;
    const guard = found && !found.consumed && !found.claimed && !conditioned ? found : null;
    if (guard) guard.claimed = true;
    const rows = (unit.rows ?? []).filter((r) => !r.written);
    let pending!: Pending;
    const answer = new Promise<Result>((resolve, reject) => {
      pending = {
        kind: 'append',
        stream: unit.stream,
        events: unit.events,
        expected: unit.expected,
        guard,
        rows,
        conditions: conditioned,
        after,
        outcome: null,
        unit,
        resolve: (r) => {
          pending.outcome = E.isRight(r) ? 'committed' : 'failed';
          resolve(r);
        },
        reject: (e) => {
          pending.outcome = 'failed';
          reject(e);
        },
      };
    });
    queue.push(pending);
    return { pending, answer };
  };

  const drain = async () => {
    writing = true;
    try {
      while (queue.length > 0) {
        // Streams in a stable order (each stream's appends keep theirs), so two processes'
        // batches lock stream rows in the same order; statements keep their arrival order.
        const taken = queue.splice(0, MAX_BATCH);
        for (const q of taken) if (q.kind === 'append' && q.conditions) await settleConditioned(q);
        const batch = taken
          .filter((q) => !(q.kind === 'append' && q.conditions))
          .map((q, i) => ({ q, i, key: q.kind === 'append' ? q.stream : '' }))
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i))
          .map(({ q }) => q);
        await settle(batch);
      }
    } finally {
      writing = false;
    }
  };

  return {
    append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision, options?: AppendWith): Promise<Result> {
      // Only what commits with the events is taken from `options` (never other fields a caller's value may carry).
      const answer = enqueue({ stream, events, expected, conditions: options?.conditions, rows: options?.rows, guard: options?.guard }, null).answer;
      if (!writing) void drain();
      return answer;
    },
    /** Successive appends to one stream in the next batch (see `EventStore.appendChain`): one statement, each unit after the one before. */
    appendChain(units: readonly AppendUnit[]): Promise<Result>[] {
      const answers: Promise<Result>[] = [];
      let before: Pending | null = null;
      for (const unit of units) {
        const { pending, answer } = enqueue(unit, before);
        answers.push(answer);
        before = pending;
      }
      if (!writing) void drain();
      return answers;
    },
    /** Commits a cached admission's guard (its count) with the next batch: false when it no longer holds. */
    guardAlone(guard: AdmissionGuard): Promise<boolean> {
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ kind: 'guard', guard, resolve, reject });
        if (!writing) void drain();
      });
    },
    /**
     * Runs a statement in the next batch's transaction (before its appends) and answers its
     * rows once that transaction committed: concurrent requests share one COMMIT.
     */
    inBatch<R>(text: string, params: readonly unknown[]): Promise<R[]> {
      return new Promise<R[]>((resolve, reject) => {
        queue.push({ kind: 'statement', text, params, resolve: resolve as (rows: unknown[]) => void, reject });
        if (!writing) void drain();
      });
    },
  };
};
