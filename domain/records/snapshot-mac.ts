import type { EnvelopeMac } from '../ports/envelope-macs.ts';
import { openSnapshot, sealSnapshot } from '../shared/sealed-snapshot.ts';

/**
 * The legacy scope snapshot seal (`m1`, the whole scope's text in one row; now a head and
 * parts are written, see domain/records/snapshot.ts, and `m1` rows are only read): its text MACed under the tenant's envelope key with
 * the stream and the revision it was folded to, so a row edited, moved to another stream or
 * another revision, or written by anyone without the key is never decided from: the scope is
 * then folded from its first event, every event MAC-checked by the store. Snapshots written
 * before this (bare text) are likewise ignored, and the next one written is MACed.
 */
const SEAL = 'm1';

export const sealScopeSnapshot = (text: string, stream: string, revision: number, mac: EnvelopeMac): string =>
  sealSnapshot('scope-snapshot', SEAL, text, stream, revision, mac);

/** The snapshot's text when its MAC holds for this stream and revision, else null. */
export const openScopeSnapshot = (stored: string, stream: string, revision: number, mac: EnvelopeMac): string | null =>
  openSnapshot(stored, 'scope-snapshot', SEAL, stream, revision, mac);
