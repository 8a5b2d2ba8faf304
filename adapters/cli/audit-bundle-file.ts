import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { BUNDLE_FORMAT, isBundleHead, type BundleHead, type BundleRecord } from '../../domain/audit/bundle-stream.ts';
import type { AuditBundle, Checkpoint } from '../../domain/audit/verify.ts';
import type { FetchedTile } from './audit-tiles.ts';
import { CliFailure, oneLine } from './failure.ts';

/**
 * Where `audit download` writes its bundle, line by line (the streamed form, BUNDLE_FORMAT):
 * a file (`--out`) or stdout. Each line waits for the stream to take the one before it, so a
 * log of any size goes to disk with one tile in memory.
 */
export const bundleWriter = async (out: string | undefined) => {
  let stream: Writable = process.stdout;
  if (out !== undefined) {
    const file = createWriteStream(out);
    await Promise.race([
      once(file, 'open'),
      once(file, 'error').then(([error]) => {
        throw new CliFailure(`--out ${out}: ${oneLine((error as Error).message)}; give a file that can be written`, 2);
      }),
    ]);
    stream = file;
  }
  const line = async (value: unknown) => {
    if (!stream.write(`${JSON.stringify(value)}\n`)) await once(stream, 'drain');
  };
  return {
    head: (checkpoint: Checkpoint, previous?: AuditBundle['previous']) =>
      line({ format: BUNDLE_FORMAT, checkpoint, ...(previous ? { previous } : {}) } satisfies BundleHead),
    tile: (t: FetchedTile) => line({ tile: t.index, hashes: t.hashes.toString('base64'), entries: t.entries } satisfies BundleRecord),
    async close() {
      if (stream === process.stdout) return;
      stream.end();
      await once(stream, 'finish');
    },
  };
};

export type BundleRead =
  | { readonly form: 'streamed'; readonly head: BundleHead; readonly records: AsyncIterable<{ value: unknown; line: number }> }
  | { readonly form: 'document'; readonly document: unknown }
  | { readonly form: 'unreadable'; readonly problem: string };

/**
 * A bundle file as `audit verify` reads it: the streamed form (its head, then its records one
 * line at a time), or a whole JSON document (bundles downloaded before downloads were streamed,
 * or a bundle an auditor assembled). Only the streamed form is read as it goes.
 */
export const readBundleFile = async (file: string): Promise<BundleRead> => {
  const input = createReadStream(file, { encoding: 'utf8' });
  const opened = await Promise.race([once(input, 'open').then(() => null), once(input, 'error').then(([e]) => e as Error)]);
  if (opened) return { form: 'unreadable', problem: opened.message };
  const lines = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
  let first: IteratorResult<string>;
  try {
    first = await lines.next();
  } catch (error) {
    return { form: 'unreadable', problem: (error as Error).message };
  }
  let head: unknown;
  try {
    head = first.done ? undefined : JSON.parse(first.value);
  } catch {
    head = undefined;
  }
  if (isBundleHead(head)) {
    async function* records() {
      let n = 1;
      for (let next = await lines.next(); !next.done; next = await lines.next()) {
        n++;
        if (next.value.trim() === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(next.value);
        } catch {
          // A damaged line: the verifier says which.
          value = null;
        }
        yield { value, line: n };
      }
    }
    return { form: 'streamed', head, records: records() };
  }
  input.destroy();
  // A one-line document was read whole already; else the file is read whole, as it always was.
  if (head !== undefined) return { form: 'document', document: head };
  try {
    return { form: 'document', document: JSON.parse(await readFile(file, 'utf8')) };
  } catch (error) {
    return { form: 'unreadable', problem: (error as Error).message };
  }
};
