/**
 * A records request admitted from the call-context cache, with no statement of its own: its
 * request count and the checks that let it in are made in the transaction that holds its
 * first append (or, when it appends nothing, in a batch of their own). It holds only if the
 * job's and tenant's streams and the job's block marks are as the last full admission saw
 * them (so the call has not ended, the job not stopped, nothing revoked, no block edited),
 * the call's count is exactly one below this request's index (no other request of the call,
 * in any instance, took it), and — for a put — its request key has written nothing yet.
 * A value: built once, never changed (what became of it is the verdict of the unit that carried it).
 */
export interface AdmissionGuard {
  readonly call: string;
  readonly index: number;
  readonly tenant: string;
  readonly jobStream: string;
  readonly jobRevision: number;
  readonly blockRevisions: readonly number[];
  readonly marks: string;
  readonly tenantStream: string;
  readonly tenantRevision: number;
  /** A put's request key (check 5: a key that already wrote answers that write instead); null for a read. */
  readonly requestKey: string | null;
}

/**
 * The guard failed: the request was neither counted nor written, and is admitted again in full.
 * `rowTaken`: it was given back because a key row of its unit was made first elsewhere (or is gone).
 */
export class GuardFailed extends Error {
  constructor(readonly rowTaken = false) {
    super('the cached admission no longer holds');
  }
}

/**
 * A request's guard as its own code carries it from append to append: the request's first
 * append carries it, and once a verdict answered it counted (`guardCounted`), the request's
 * later appends go without it. Only the request's code marks it, from the answers it gets.
 */
export interface CarriedGuard {
  readonly guard: AdmissionGuard;
  counted: boolean;
}

export const carriedGuard = (guard: AdmissionGuard): CarriedGuard => ({ guard, counted: false });

/** The guard an append of the request carries: none once a verdict counted it. */
export const guardToSend = (c: CarriedGuard | null | undefined): AdmissionGuard | null => (c && !c.counted ? c.guard : null);

/** Marks the guard counted when the answer of an append that carried it says so. */
export const heardVerdict = (
  c: CarriedGuard | null | undefined,
  answer: { readonly left?: { readonly guardCounted?: boolean }; readonly right?: { readonly guardCounted?: boolean } },
) => {
  if (c && (answer.left?.guardCounted === true || answer.right?.guardCounted === true)) c.counted = true;
};

/**
 * Where a cached admission's guard goes when its request appended nothing (a refusal, a read
 * with nothing to audit): `alone` commits it with the next batch. A request that appends
 * passes its guard with its first append (`AppendWith.guard`).
 */
export interface AdmissionGuards {
  alone(guard: AdmissionGuard): Promise<boolean>;
}
