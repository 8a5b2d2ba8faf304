import type { NoteKey } from './note.ts';

/**
 * The log's side of c2sp.org/tlog-witness `add-checkpoint`, as pure rules: the request body a
 * witness is sent, and what its answer means for the next one.
 */

/** A client sends at most 63 proof lines (the specification); a tree of 2^63 leaves needs no more. */
export const MAX_PROOF_LINES = 63;

/**
 * The request body: `old <size>`, one base64 hash a line (the consistency proof from the old
 * size to the checkpoint's), an empty line, then the signed checkpoint note. Every line ends
 * in a newline; the old size is plain decimal (`0` for a witness that never cosigned this log).
 */
export const addCheckpointBody = (oldSize: number, proof: readonly string[], note: string): string => {
  if (!Number.isSafeInteger(oldSize) || oldSize < 0) throw new RangeError(`old size ${oldSize} is not a tree size`);
  if (proof.length > MAX_PROOF_LINES) throw new RangeError(`a consistency proof of ${proof.length} hashes is longer than any tree's`);
  if (!note.endsWith('\n')) throw new RangeError('a signed note ends in a newline');
  return `old ${oldSize}\n${proof.map((p) => `${p}\n`).join('')}\n${note}`;
};

/** How a witness answered one submission. */
export type WitnessAnswer =
  /** 200: the body's signature lines (the caller verifies them under the witness's key). */
  | { readonly kind: 'cosigned'; readonly lines: readonly string[] }
  /** 409: the witness last cosigned a tree of this size; resend from it. */
  | { readonly kind: 'conflict'; readonly size: number }
  /** Any other answer (403 no trusted signature, 404 unknown origin, 422 inconsistent, 400, 429, 5xx) or a 409 without a size. */
  | { readonly kind: 'refused'; readonly status: number };

/**
 * Reads a witness's answer. A 409 carries the size the witness holds as `text/x.tlog.size`:
 * decimal and a newline; a 409 that does not is a refusal like any other (nothing to resend
 * from). A 200 carries one or more note signature lines, each ending in a newline.
 */
export const readWitnessAnswer = (status: number, contentType: string | null, body: string): WitnessAnswer => {
  if (status === 200) return { kind: 'cosigned', lines: body.split('\n').filter((l) => l.length > 0) };
  if (status === 409) {
    const size = /^(0|[1-9][0-9]{0,15})\n?$/.exec(body);
    const typed = (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'text/x.tlog.size';
    if (typed && size && Number.isSafeInteger(Number(size[1]))) return { kind: 'conflict', size: Number(size[1]) };
  }
  return { kind: 'refused', status };
};

/** What to send next to a witness that holds `witnessSize` of this log, given the log's newest size. */
export type Resend =
  /** Send the newest checkpoint with a proof from the witness's size (0: no proof). */
  | { readonly kind: 'from'; readonly oldSize: number }
  /** The witness holds a bigger tree than the log ever had: no proof can lead there (a rewound log, or another log of this origin). */
  | { readonly kind: 'ahead' };

export const resendFrom = (witnessSize: number, logSize: number): Resend =>
  witnessSize > logSize ? { kind: 'ahead' } : { kind: 'from', oldSize: witnessSize };

/**
 * The wait before trying a witness again after `failures` failures in a row: the interval,
 * doubled each time, at most a minute (or the interval, when that is longer).
 */
export const retryDelayMs = (failures: number, intervalMs: number): number =>
  failures <= 0 ? intervalMs : Math.max(intervalMs, Math.min(60_000, intervalMs * 2 ** Math.min(failures, 16)));

/** A configured witness: its cosignature verifier key, and the base URL it is submitted to (null: it is never submitted to, its cosignatures are posted). */
export interface Witness {
  readonly key: NoteKey;
  readonly url: string | null;
}
