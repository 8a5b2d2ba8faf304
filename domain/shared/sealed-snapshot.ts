import type { EnvelopeMac } from '../ports/envelope-macs.ts';

/**
 * A snapshot's text as stored: `<format>.<mac>.<text>`, the MAC over its kind, format, stream,
 * revision and text, so a row edited, moved to another stream or revision, or written without
 * the key never opens. One shape for every kind of snapshot (job, tenant, agent, scope).
 */
const macInput = (kind: string, format: string, stream: string, revision: number, text: string) => `${kind}|${format}|${stream}|${revision}|${text}`;

export const sealSnapshot = (kind: string, format: string, text: string, stream: string, revision: number, mac: EnvelopeMac): string =>
  `${format}.${mac(macInput(kind, format, stream, revision, text))}.${text}`;

/** The text when the row is of this format and its MAC holds for this stream and revision, else null. */
export const openSnapshot = (stored: string, kind: string, format: string, stream: string, revision: number, mac: EnvelopeMac): string | null => {
  const first = stored.indexOf('.');
  const second = stored.indexOf('.', first + 1);
  if (first < 0 || second < 0 || stored.slice(0, first) !== format) return null;
  const text = stored.slice(second + 1);
  return stored.slice(first + 1, second) === mac(macInput(kind, format, stream, revision, text)) ? text : null;
};
