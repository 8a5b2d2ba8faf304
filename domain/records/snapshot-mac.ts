import type { EnvelopeMac } from '../ports/envelope-macs.ts';

/**
 * A scope snapshot as stored: its text (`packScope`) MACed under the tenant's envelope key with
 * the stream and the revision it was folded to, so a row edited, moved to another stream or
 * another revision, or written by anyone without the key is never decided from: the scope is
 * then folded from its first event, every event MAC-checked by the store. Snapshots written
 * before this (bare text) are likewise ignored, and the next one written is MACed.
 */
const SEAL = 'm1';

const macInput = (stream: string, revision: number, text: string) => `scope-snapshot|${SEAL}|${stream}|${revision}|${text}`;

export const sealScopeSnapshot = (text: string, stream: string, revision: number, mac: EnvelopeMac): string =>
  `${SEAL}.${mac(macInput(stream, revision, text))}.${text}`;

/** The snapshot's text when its MAC holds for this stream and revision, else null. */
export const openScopeSnapshot = (stored: string, stream: string, revision: number, mac: EnvelopeMac): string | null => {
  const first = stored.indexOf('.');
  const second = stored.indexOf('.', first + 1);
  if (first < 0 || second < 0 || stored.slice(0, first) !== SEAL) return null;
  const text = stored.slice(second + 1);
  return stored.slice(first + 1, second) === mac(macInput(stream, revision, text)) ? text : null;
};
