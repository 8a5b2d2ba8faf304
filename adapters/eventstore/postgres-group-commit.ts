import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import type { Appended, ExpectedRevision, NewEvent, RecordedEvent, WrongExpectedRevision } from '../../domain/ports/event-store.ts';
import type { Sql } from '../../domain/ports/read-model.ts';
import { prepared } from '../postgres/prepared.ts';

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

interface Pending {
  readonly stream: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
  readonly resolve: (r: Result) => void;
  readonly reject: (e: unknown) => void;
}

interface Row {
  idx: number;
  ok: boolean;
  first_position: number | null;
  last_revision: number | null;
  actual: number | null;
}

const CALL = `SELECT idx, ok, first_position, last_revision, actual
  FROM custodian_append_many($1::text[], $2::text[], $3::int[], $4::uuid[], $5::text[], $6::int[], $7::jsonb[], $8::jsonb[])`;
const MAX_BATCH = 256;

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
  const queue: Pending[] = [];
  let writing = false;

  const write = async (batch: readonly Pending[]): Promise<Result[]> => {
    const flat = batch.flatMap((p) => p.events);
    const args = [
      batch.map((p) => p.stream),
      batch.map((p) => (typeof p.expected === 'number' ? String(p.expected) : p.expected)),
      batch.map((p) => p.events.length),
      flat.map((e) => e.event_id),
      flat.map((e) => e.type),
      flat.map((e) => e.schema_version),
      flat.map((e) => JSON.stringify(e.data)),
      flat.map((e) => JSON.stringify(e.metadata)),
    ];
    const needsInline = inline !== null && flat.some((e) => inline.handles(e.type));
    let rows: Row[];
    if (!needsInline) {
      rows = (await pool.query<Row>(prepared(CALL, args))).rows;
    } else {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        rows = (await client.query<Row>(prepared(CALL, args))).rows;
        const now = Date.now();
        const recorded: RecordedEvent[] = [];
        for (const r of rows) {
          if (!r.ok) continue;
          const p = batch[r.idx - 1]!;
          p.events.forEach((e, i) => {
            if (inline!.handles(e.type))
              recorded.push({
                ...e,
                stream: p.stream,
                revision: Number(r.last_revision) - p.events.length + 1 + i,
                position: Number(r.first_position) + i,
                recorded_at: now,
              });
          });
        }
        if (recorded.length > 0) await inline!.apply(sqlOn(client), recorded);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }
    return rows
      .sort((a, b) => a.idx - b.idx)
      .map((r, i): Result => {
        const p = batch[i]!;
        return r.ok
          ? E.right({ nextExpectedRevision: Number(r.last_revision), position: Number(r.first_position) + p.events.length - 1 })
          : E.left({ kind: 'wrong_expected_revision', stream: p.stream, expected: p.expected, actual: r.actual ?? 'no_stream' });
      });
  };

  const settle = async (batch: readonly Pending[]) => {
    try {
      const results = await write(batch);
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      // One bad append (or a deadlock with another process) must not fail the others: alone, each gets its own answer.
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const p of batch) await settle([p]);
    }
  };

  const drain = async () => {
    writing = true;
    try {
      while (queue.length > 0) {
        // Streams in a stable order (each stream's appends keep theirs), so two processes'
        // batches lock stream rows in the same order.
        const batch = queue
          .splice(0, MAX_BATCH)
          .map((p, i) => ({ p, i }))
          .sort((a, b) => (a.p.stream < b.p.stream ? -1 : a.p.stream > b.p.stream ? 1 : a.i - b.i))
          .map(({ p }) => p);
        await settle(batch);
      }
    } finally {
      writing = false;
    }
  };

  return {
    append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<Result> {
      return new Promise<Result>((resolve, reject) => {
        queue.push({ stream, events, expected, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
};
