/**
 * A row that must commit with the next append of the work it was made in, and only with it:
 * a new record's data key, made while its body is sealed. Written in the append's transaction
 * after the append succeeded, so a put that is refused (first, or after a conflict) leaves no
 * key behind, and no other writer can see the key before an event names it.
 */
export interface AppendRow {
  /** An INSERT over arrays (its parameters are the rows' columns, in order) answering `id` for each row written. */
  readonly text: string;
  readonly id: string;
  readonly row: readonly unknown[];
  /**
   * Kinds of row are written in this order (lowest first) in every transaction, so the row
   * locks they take are always taken in one order: the keys a put only uses, then a subject's
   * new key, then the data keys it wraps.
   */
  readonly rank: number;
  /** Heard after the commit that holds the row. */
  readonly committed: () => void;
  /** Heard when the row was not written (it conflicted, or a check found nothing): the work is done again. */
  readonly failed?: () => void;
  /** Set once a commit holds it: a later append of the same work does not write it again. */
  written: boolean;
}

/**
 * A row of the append conflicted (another writer made the record's key first): nothing of that
 * append committed. The work is done again; it then finds the key that writer made.
 */
export class AppendRowTaken extends Error {
  constructor() {
    super('a row made for this append was made first by another writer');
  }
}

/** Where rows ride: `run` makes the rows made inside `work` commit with its appends. */
export interface AppendRows {
  run<T>(work: () => Promise<T>): Promise<T>;
}
