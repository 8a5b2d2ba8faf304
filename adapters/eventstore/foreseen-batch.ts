import type pg from 'pg';
import type { ExpectedRevision } from '../../domain/ports/event-store.ts';

/** What `custodian_append_from` answers for one append (by 1-based index into its batch). */
export interface AppendedRow {
  idx: number;
  ok: boolean;
  first_position: number | null;
  last_revision: number | null;
  actual: number | null;
}

/**
 * The rows a batch's append statement answers when every append meets its expected revision,
 * from the first position its transaction took: each append's events at the next positions,
 * its last revision its expected one moved on by its events. Null when one of them cannot be
 * foreseen (it expects `any` or `stream_exists`, or appends nothing): that batch is written
 * step by step.
 */
export const foreseenRows = (appends: readonly { expected: ExpectedRevision; events: readonly unknown[] }[], first: number): AppendedRow[] | null => {
  const rows: AppendedRow[] = [];
  let next = first;
  for (const [i, p] of appends.entries()) {
    const n = p.events.length;
    if (n === 0) return null;
    const last = p.expected === 'no_stream' ? n - 1 : typeof p.expected === 'number' ? p.expected + n : null;
    if (last === null) return null;
    rows.push({ idx: i + 1, ok: true, first_position: next, last_revision: last, actual: last });
    next += n;
  }
  return rows;
};

/** Whether the append statement answered exactly the rows foreseen (every append made, where foreseen). */
export const asForeseen = (answered: readonly AppendedRow[], foreseen: readonly AppendedRow[]): boolean => {
  const made = answered.filter((r) => r.idx !== null);
  if (made.length !== foreseen.length) return false;
  const byIdx = new Map(made.map((r) => [r.idx, r]));
  return foreseen.every((f) => {
    const r = byIdx.get(f.idx);
    return r !== undefined && r.ok === true && Number(r.first_position) === f.first_position && Number(r.last_revision) === f.last_revision;
  });
};

/**
 * Runs `work` with the client in pg's pipeline mode (node-postgres.com/features/pipelining):
 * the queries it starts are sent without waiting for each other's answers, and PostgreSQL runs
 * them in order, in the client's open transaction. The client leaves pipeline mode only once
 * every query sent in it has been answered: when `work` throws, or `answeredAll` cannot vouch
 * for its result (a `Promise.all` that rejected at its first failure leaves the queries sent
 * after that one unanswered), a last query is sent and awaited — PostgreSQL answers it after
 * all the others. Leaving earlier would hand their answers to the next queries (ROLLBACK, the
 * step-by-step path, the pool's next borrower): a caller answered another's rows or error,
 * prepared-statement bookkeeping out of step, an error with no query to take it thrown from
 * the client.
 */
export const pipelined = async <T>(client: pg.PoolClient, work: () => Promise<T>, answeredAll: (result: T) => boolean = () => false): Promise<T> => {
  const mode = client as unknown as { pipeline: boolean };
  mode.pipeline = true;
  let answered = false;
  try {
    const result = await work();
    answered = answeredAll(result);
    return result;
  } finally {
    if (!answered) await client.query('SELECT 1').catch(() => undefined);
    mode.pipeline = false;
  }
};
