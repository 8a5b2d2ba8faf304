import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import type { AppendUnit, AppendWith, Appended, ExpectedRevision, NewEvent, StreamAt, WrongExpectedRevision } from '../../domain/ports/event-store.ts';
import type { AuditLine } from '../../domain/audit/lines.ts';
import { fused, type Fragment } from '../../projections/fragments.ts';
import type { InlineProjections } from './inline-projections.ts';
import { prepared } from '../postgres/prepared.ts';
import { GuardFailed, type AdmissionGuard } from '../../domain/ports/admission-guard.ts';
import { AppendRowTaken, type AppendRow } from '../../domain/ports/append-rows.ts';
import { brokenLink } from './append-chain.ts';

/*
 * What commits with a put, in one place: a unit (`AppendUnit`, built by the command as one
 * value: stream, expected revision, events with their MACs, conditions, key rows, the
 * request's guard, audit lines) becomes the parameters of one `custodian_commit` call
 * (`commitParams`), which checks and writes every unit of the batch in one statement and
 * answers a verdict per unit (`CommitRow`); each caller is answered from its verdict (`answer`).
 */

/** The call of `custodian_commit` (its newest body: migrations/0031_eventstore-011.sql): a whole batch in one statement. */
export const COMMIT_CALL = 'SELECT kind, idx, verdict, first_position, last_revision, stream, actual FROM custodian_commit($1::jsonb, $2::json)';

/**
 * The batch's one statement: the call, then the inline models' fragments, which write only the
 * units the call committed (`committed`); it answers the call's rows.
 */
export const commitStatement = (params: readonly unknown[], models: readonly Fragment[]): [string, unknown[]] => {
  const { text, params: all } = fused(models, {
    ctes: [`verdicts AS MATERIALIZED (${COMMIT_CALL})`, `committed AS (SELECT idx AS unit FROM verdicts WHERE kind = 'unit' AND verdict = 'committed')`],
    params,
    select: 'SELECT kind, idx, verdict, first_position, last_revision, stream, actual FROM verdicts',
  });
  return [text, all];
};

/** One unit as the call takes it: its guard's and its chain predecessor's 1-based ordinals, or null. */
export interface CommitUnit {
  readonly guard: number | null;
  readonly after: number | null;
  readonly watched: boolean;
  readonly unmoved: readonly StreamAt[];
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly events: readonly NewEvent[];
  readonly rows: readonly AppendRow[];
  /** Its events' audit lines, each placed and timed by the call when the unit commits. */
  readonly lines: readonly AuditLine[];
}

/** A row the call answers: one per unit, then one per guard. */
export interface CommitRow {
  readonly kind: 'unit' | 'guard';
  readonly idx: number;
  readonly verdict: 'committed' | 'conflict' | 'broken' | 'guard_failed' | 'row_taken' | 'held' | 'failed';
  readonly first_position: string | null;
  readonly last_revision: string | null;
  readonly stream: string | null;
  readonly actual: string | null;
}

/** A key row's columns by name (its bytes in base64), as the call reads them. */
const keyRows = (rows: readonly AppendRow[], kind: AppendRow['kind'], columns: readonly string[]) =>
  rows
    .filter((r) => r.kind === kind)
    .map((r) => Object.fromEntries(columns.map((c, i) => [c, Buffer.isBuffer(r.row[i]) ? r.row[i].toString('base64') : r.row[i]])));

/**
 * The parameters of `COMMIT_CALL`: the batch as one JSON document, each unit with its own parts,
 * named as the function reads them, and its events' data beside it, in order. A jsonb value
 * holds at most 256 MB in all: the data, each event's a jsonb value of its own in the log, would
 * make one large append (an import's scope) a document PostgreSQL refuses.
 */
export const commitParams = (guards: readonly AdmissionGuard[], units: readonly CommitUnit[]): [string, string] => [
  JSON.stringify({
    guards: guards.map((g) => ({
      call: g.call,
      idx: g.index,
      tenant: g.tenant,
      job_stream: g.jobStream,
      job_rev: g.jobRevision,
      blocks: g.blockRevisions,
      marks: g.marks,
      tenant_stream: g.tenantStream,
      tenant_rev: g.tenantRevision,
      request_key: g.requestKey,
    })),
    units: units.map((u) => ({
      guard: u.guard,
      after: u.after,
      watched: u.watched,
      stream: u.stream,
      expected: String(u.expected),
      unmoved: u.unmoved.map((c) => ({ stream: c.stream, revision: c.revision === 'no_stream' ? null : c.revision })),
      events: u.events.map((e) => ({ id: e.event_id, type: e.type, version: e.schema_version, meta: e.metadata })),
      used: keyRows(u.rows, 'data_key_used', ['id']).map((r) => r.id),
      subject_keys: keyRows(u.rows, 'subject_key_made', ['tenant', 'subject', 'wrapped']),
      data_keys: keyRows(u.rows, 'data_key_made', ['id', 'tenant', 'plugin', 'scope', 'record_key', 'owner', 'wrapped', 'kek']),
      lines: u.lines.map((l) => ({
        event: l.event,
        tenant: l.tenant,
        kind: l.kind,
        job: l.job,
        subject: l.subject,
        epoch: l.epoch,
        refs: l.record_refs,
        head: l.head,
        mid: l.mid,
        tail: l.tail,
      })),
    })),
  }),
  JSON.stringify(units.flatMap((u) => u.events.map((e) => e.data))),
];

type Result = E.Either<WrongExpectedRevision, Appended>;

/**
 * Callers hear their units' verdicts in the event loop's next turn, all in one: by then the
 * writer has sent the next batch (its statement leaves in this turn's microtasks), so PostgreSQL
 * commits it while this process answers the callers and takes their next requests. Answered at
 * once, the callers' work ran first and the database waited for it: 1,524 puts/s against 1,642
 * (a scope per client, bench/profile-put.ts). A unit's outcome, which the next batch's chains
 * read, is set at once.
 */
const inTheNextTurn = () => {
  let due: (() => void)[] = [];
  return (hear: () => void) => {
    if (due.length === 0)
      setImmediate(() => {
        const now = due;
        due = [];
        now.forEach((h) => h());
      });
    due.push(hear);
  };
};

/** A request admitted from the cache that appends nothing (a refusal): its guard commits alone. */
interface GuardOnly {
  readonly kind: 'guard';
  readonly guard: AdmissionGuard;
  readonly resolve: (held: boolean) => void;
  readonly reject: (e: unknown) => void;
}

interface Pending {
  readonly kind: 'append';
  readonly unit: AppendUnit;
  /** The cached admission this append carries (only a request's first append, never a conditioned one). */
  readonly guard: AdmissionGuard | null;
  /** The unit before it in its chain (`appendChain`): this one commits only if that one did. */
  readonly after: Pending | null;
  outcome: 'committed' | 'failed' | null;
  readonly resolve: (r: Result) => void;
  readonly reject: (e: unknown) => void;
}

type Queued = Pending | GuardOnly;

/** What one batch's statement answered. */
interface Written {
  readonly units: readonly CommitRow[];
  readonly held: ReadonlySet<AdmissionGuard>;
}

/** The most units and guards one batch's statement takes; the rest wait for the next. */
export const MAX_BATCH = 256;

/**
 * A batch whose commit was sent and whose answer never came (the connection broke): it may have
 * committed, so nothing of it is run again; each of its callers hears this error.
 */
export class CommitInDoubt extends Error {
  constructor(readonly reason: unknown) {
    // The lost connection is its cause: the edge answers it as the database not answering (503).
    super(`the batch's commit is in doubt (its answer was lost): ${reason instanceof Error ? reason.message : String(reason)}`, { cause: reason });
  }
}

/**
 * The error of the batch's statement: an error PostgreSQL answered (it has a SQLSTATE) rolled
 * the batch back, and is thrown as it is (the batch is retried unit by unit); any other (the
 * connection lost) leaves the batch's fate unknown.
 */
const failureOf = (e: unknown): unknown =>
  e instanceof Error && 'severity' in e && /^[0-9A-Z]{5}$/.test(String((e as { code?: unknown }).code)) ? e : new CommitInDoubt(e);

/** The answer of a unit that committed: its events at the positions the call gave them. */
const appendedOf = (p: Pending, r: CommitRow, counted: { guardCounted?: boolean }): Result =>
  E.right({ nextExpectedRevision: Number(r.last_revision), position: Number(r.first_position) + p.unit.events.length - 1, ...counted });

/** The call's rows as the units' verdicts and the guards that held. */
const verdicts = (rows: readonly CommitRow[], guards: readonly AdmissionGuard[]) => ({
  units: rows.filter((r) => r.kind === 'unit'),
  held: new Set(rows.filter((r) => r.kind === 'guard' && r.verdict === 'held').map((r) => guards[r.idx - 1]!)),
});

/**
 * Group commit, the one way the service writes to the PostgreSQL log: commands' units that
 * arrive while a batch is committing queue, and one writer drains the queue into the next
 * statement (`commitStatement`): the `custodian_commit` call (every unit's guard, conditions,
 * revision and key rows checked, and the units that pass written, with their audit lines),
 * then the inline models of the units it committed. It commits on its own: one round trip.
 * Each caller is answered from its unit's verdict; a refused unit's command decides again.
 */
export const groupCommitter = (pool: pg.Pool, inline: InlineProjections | null) => {
  const queue: Queued[] = [];
  let writing = false;
  const afterNextBatchIsSent = inTheNextTurn();

  const write = async (batch: readonly Pending[], guardOnly: readonly GuardOnly[]): Promise<Written> => {
    const guards = [...batch.flatMap((p) => (p.guard ? [p.guard] : [])), ...guardOnly.map((g) => g.guard)];
    const ordinal = new Map(guards.map((g, i) => [g, i + 1]));
    const place = new Map(batch.map((p, i) => [p, i + 1]));
    const units: CommitUnit[] = batch.map((p) => ({
      guard: p.guard ? ordinal.get(p.guard)! : null,
      after: p.after ? (place.get(p.after) ?? null) : null,
      watched: p.unit.conditions?.watched === true,
      unmoved: p.unit.conditions?.unmoved ?? [],
      stream: p.unit.stream,
      expected: p.unit.expected,
      events: p.unit.events,
      rows: p.unit.rows ?? [],
      lines: p.unit.audit ?? [],
    }));
    const read = inline ? batch.flatMap((p, i) => p.unit.events.flatMap((event) => (inline.handles(event.type) ? [{ unit: i + 1, event }] : []))) : [];
    const models = read.length > 0 ? await inline!.fragments(read) : [];
    // A connection lost while the statement runs is heard by it (it rejects); the pool's
    // clients each listen for 'error' (createPool), so it never ends the process.
    const { rows } = await pool.query<CommitRow>(prepared(...commitStatement(commitParams(guards, units), models))).catch((e: unknown) => {
      throw failureOf(e);
    });
    return verdicts(rows, guards);
  };

  /**
   * Answers a unit's caller from its verdict: committed at its positions, a conflict on a stream,
   * or refused. `counted`: the guard it carried was counted (the verdicts' guard rows said so).
   */
  const answer = (p: Pending, r: CommitRow, counted: boolean) => {
    const guardCounted = counted ? { guardCounted: true } : {};
    switch (r.verdict) {
      case 'committed':
        return p.resolve(appendedOf(p, r, guardCounted));
      case 'conflict':
        return p.resolve(
          E.left({
            kind: 'wrong_expected_revision',
            stream: r.stream!,
            expected: r.stream === p.unit.stream ? p.unit.expected : (p.unit.conditions?.unmoved?.find((u) => u.stream === r.stream)?.revision ?? 'any'),
            actual: r.actual === null ? 'no_stream' : Number(r.actual),
            ...guardCounted,
          }),
        );
      case 'broken':
        // Its guard was given back: the command, decided again, carries it again.
        return p.resolve(brokenLink(p.unit, p.after!.unit));
      case 'row_taken':
        // A cached admission given back uncounted: the request is admitted again in full (and then finds the key).
        return p.reject(p.guard ? new GuardFailed(true) : new AppendRowTaken());
      default:
        return p.reject(new GuardFailed());
    }
  };

  const settle = async (all: readonly Queued[]): Promise<void> => {
    // A chained unit whose predecessor ended, in an earlier batch, without committing writes nothing (it is decided again);
    // nor does any unit after it here: its predecessor, answered now, is not in the call to hold it back.
    const here = new Set(all);
    const broken = new Set<Queued>();
    for (let more = true; more;) {
      more = false;
      for (const q of all)
        if (q.kind === 'append' && q.after !== null && !broken.has(q) && (broken.has(q.after) || (!here.has(q.after) && q.after.outcome !== 'committed'))) {
          broken.add(q);
          more = true;
          q.resolve(brokenLink(q.unit, q.after.unit));
        }
    }
    const batch = all.filter((q) => !broken.has(q));
    if (batch.length === 0) return;
    const appends = batch.filter((q): q is Pending => q.kind === 'append');
    const guardOnly = batch.filter((q): q is GuardOnly => q.kind === 'guard');
    let written: Written;
    try {
      written = await write(appends, guardOnly);
    } catch (error) {
      // It may have committed: run again, its statements would count twice and its units meet themselves.
      if (error instanceof CommitInDoubt) return batch.forEach((q) => q.reject(error));
      // One bad statement (or a deadlock with another process) must not fail the others: alone, each gets its own answer.
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const q of batch) await settle([q]);
      return;
    }
    written.units.forEach((r) => {
      const p = appends[r.idx - 1]!;
      answer(p, r, p.guard !== null && written.held.has(p.guard));
    });
    guardOnly.forEach((g) => g.resolve(written.held.has(g.guard)));
  };

  /**
   * Queues one unit, as its caller built it. An append with conditions never carries a guard
   * (its caller's request counts it with another append, or alone).
   */
  const enqueue = (unit: AppendUnit, after: Pending | null): { pending: Pending; answer: Promise<Result> } => {
    const conditioned = unit.conditions?.watched === true || (unit.conditions?.unmoved?.length ?? 0) > 0;
    const guard = unit.guard && !conditioned ? unit.guard : null;
    let pending!: Pending;
    const answer = new Promise<Result>((resolve, reject) => {
      pending = {
        kind: 'append',
        unit,
        guard,
        after,
        outcome: null,
        resolve: (r) => {
          pending.outcome = E.isRight(r) ? 'committed' : 'failed';
          afterNextBatchIsSent(() => resolve(r));
        },
        reject: (e) => {
          pending.outcome = 'failed';
          afterNextBatchIsSent(() => reject(e));
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
        const batch = queue
          .splice(0, MAX_BATCH)
          .map((q, i) => ({ q, i, key: q.kind === 'append' ? q.unit.stream : '' }))
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i))
          .map(({ q }) => q);
        await settle(batch);
      }
    } finally {
      writing = false;
    }
  };

  const kick = () => {
    if (!writing) void drain();
  };

  return {
    append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision, options?: AppendWith): Promise<Result> {
      // Only what commits with the events is taken from `options` (never other fields a caller's value may carry).
      const { answer } = enqueue(
        { stream, events, expected, conditions: options?.conditions, rows: options?.rows, guard: options?.guard, audit: options?.audit },
        null,
      );
      kick();
      return answer;
    },
    /** Successive appends to one stream in the next batch (see `EventStore.appendChain`): each unit after the one before. */
    appendChain(units: readonly AppendUnit[]): Promise<Result>[] {
      const answers: Promise<Result>[] = [];
      let before: Pending | null = null;
      for (const unit of units) {
        const { pending, answer } = enqueue(unit, before);
        answers.push(answer);
        before = pending;
      }
      kick();
      return answers;
    },
    /** Commits a cached admission's guard (its count) with the next batch: false when it no longer holds. */
    guardAlone(guard: AdmissionGuard): Promise<boolean> {
      return new Promise<boolean>((resolve, reject) => {
        queue.push({
          kind: 'guard',
          guard,
          resolve: (held) => afterNextBatchIsSent(() => resolve(held)),
          reject: (e) => afterNextBatchIsSent(() => reject(e)),
        });
        kick();
      });
    },
  };
};
