import type { Sealed } from '../records/events.ts';

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
 * before an event names it. Plain data: what became of it is its unit's verdict.
 */
export interface AppendRow {
  readonly kind: AppendRowKind;
  /** The row's identity, as the store's statement for its kind answers it when the row was written. */
  readonly id: string;
  /** The row's columns, in the order its kind's statement takes them. */
  readonly row: readonly unknown[];
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
 * One decision's key work: a token the put makes, seals under, and ends (`Sealer.endWork`)
 * once the decision has ended. The sealer chooses one key per record under one token (a body
 * and its digest are sealed under the same key) and keeps a new key openable until the token
 * ends; what the seals made it answers as rows (`SealedInWork`), which the put carries to its
 * append. Nothing is added to the token.
 */
export interface KeyWork {
  /**
   * The request was admitted from the call-context cache: the sealer does not look for the
   * record's key (a row that then conflicts fails the request's guard, and the request,
   * admitted again in full, looks then).
   */
  readonly cached: boolean;
}

export const keyWork = (cached: boolean): KeyWork => Object.freeze({ cached });

/** A value sealed in key work, and the key rows that must commit with it (the same rows each time its key is used). */
export interface SealedInWork {
  readonly sealed: Sealed;
  readonly rows: readonly AppendRow[];
}

/** How a decision's key work ended: its unit committed, a row of it was taken, or anything else. */
export type KeyWorkEnd = 'committed' | 'row_taken' | 'ended';

/** The rows of several seals, each row once. */
export const joinRows = (...lists: readonly (readonly AppendRow[])[]): readonly AppendRow[] => {
  const seen = new Set<string>();
  return lists.flat().filter((r) => {
    const id = `${r.kind}\n${r.id}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
};
