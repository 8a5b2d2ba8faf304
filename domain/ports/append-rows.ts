/**
 * The kinds of key row a put's append writes or locks with its events, in the order every
 * transaction takes their locks (lowest first): the data keys it only uses, then a data
 * subject's new key, then the new data keys that key wraps.
 */
export const APPEND_ROW_KINDS = ['data_key_used', 'subject_key_made', 'data_key_made'] as const;
export type AppendRowKind = (typeof APPEND_ROW_KINDS)[number];

/**
 * A row that must commit with one append and only with it: a new record's data key, made
 * while its body is sealed, or a key the append names, locked so no shred deletes it first.
 * Written in the append's transaction after the append succeeded, so a put that is refused
 * (first, or after a conflict) leaves no key behind, and no other writer can see the key
 * before an event names it.
 */
export interface AppendRow {
  readonly kind: AppendRowKind;
  /** The row's identity, as the store's statement for its kind answers it when the row was written. */
  readonly id: string;
  /** The row's columns, in the order its kind's statement takes them. */
  readonly row: readonly unknown[];
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

/**
 * One decision's key work: the rows its sealing made for its append. A value the put makes,
 * hands to the sealer (which adds rows) and then to the append (which commits them): what
 * commits together is passed, never looked up from the surrounding async context.
 */
export interface KeyWork {
  readonly rows: AppendRow[];
  /**
   * The request was admitted from the call-context cache: the sealer does not look for the
   * record's key (a row that then conflicts fails the request's guard, and the request,
   * admitted again in full, looks then).
   */
  readonly cached: boolean;
  /** Run once the decision has ended, however it ended (a new key stops being pinned). */
  readonly endings: (() => void)[];
}

export const keyWork = (cached: boolean): KeyWork => ({ rows: [], cached, endings: [] });

/** Ends a decision's key work: its endings run once. */
export const endKeyWork = (work: KeyWork) => {
  for (const then of work.endings.splice(0)) then();
};

/** Runs `decide` with a fresh key work, ended however `decide` ends. */
export const withKeyWork = async <T>(cached: boolean, decide: (work: KeyWork) => Promise<T>): Promise<T> => {
  const work = keyWork(cached);
  try {
    return await decide(work);
  } finally {
    endKeyWork(work);
  }
};
