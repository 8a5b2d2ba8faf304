/**
 * A records request admitted from the call-context cache, with no statement of its own: its
 * request count and the checks that let it in are made in the transaction that holds its
 * first append (or, when it appends nothing, in a batch of their own). It holds only if the
 * job's and tenant's streams and the job's block marks are as the last full admission saw
 * them (so the call has not ended, the job not stopped, nothing revoked, no block edited),
 * the call's count is exactly one below this request's index (no other request of the call,
 * in any instance, took it), and — for a put — its request key has written nothing yet.
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
  /** A put's request key (check 5: a key that already wrote answers that write instead). */
  requestKey: string | null;
  /** Set once a transaction holding the guard committed: the request is counted and admitted. */
  consumed: boolean;
  /** Set when an append took the guard: the request's later appends and writes go without it. */
  claimed: boolean;
}

/** The guard failed: the request was neither counted nor written, and is admitted again in full. */
export class GuardFailed extends Error {
  constructor() {
    super('the cached admission no longer holds');
  }
}

/**
 * Where a cached admission's guard goes when its request appended nothing (a refusal, a read
 * with nothing to audit): `alone` commits it with the next batch. A request that appends
 * passes its guard with its first append (`AppendWith.guard`).
 */
export interface AdmissionGuards {
  alone(guard: AdmissionGuard): Promise<boolean>;
}
