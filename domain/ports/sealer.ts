import type { Sealed } from '../records/events.ts';
import type { KeyWork, KeyWorkEnd, SealedInWork } from './append-rows.ts';

/** Where a sealed value belongs: the additional data that binds it to its record version. */
export interface SealContext {
  readonly tenant: string;
  readonly plugin: string;
  readonly scope: string;
  readonly key: string;
  readonly version: number;
  /** The data subject whose key wraps the data key; null for the tenant key. */
  readonly data_subject: string | null;
}

export type SealedField = 'body' | 'dedupe';

/** Encryption of bodies and digests (SPEC §7 keys). Plaintext never reaches the log. */
export interface Sealer {
  /** Seals under the record's data key (a new key is written at once). */
  seal(ctx: SealContext, field: SealedField, plaintext: string): Promise<Sealed>;
  /**
   * Seals in a put's key work: the key it makes or uses is answered as rows, written or
   * locked with the put's append and only with it. A sealer with no such rows has none.
   */
  sealInWork?(ctx: SealContext, field: SealedField, plaintext: string, work: KeyWork): Promise<SealedInWork>;
  /**
   * Ends a key work, once, however its decision ended: a new key is no longer held openable
   * for it, and what its verdict taught (a key now committed, a key gone) is kept.
   */
  endWork?(work: KeyWork, end: KeyWorkEnd): void;
  /** The plaintext, or null when its key was shredded (the value is gone for good). */
  open(ctx: SealContext, field: SealedField, sealed: Sealed): Promise<string | null>;
  /**
   * Optional: loads the keys of many sealed values at once, so the `open`s that follow find
   * them in memory (an export or a projection batch opens thousands; one round trip each is
   * the whole cost). A key it cannot load is left for `open` to report.
   */
  prefetch?(sealed: readonly Sealed[]): Promise<void>;
  /** The keyed digest of dedupe text (HMAC-SHA-256 with the tenant's dedupe key). */
  dedupeDigest(tenant: string, text: string): string;
}
