import * as E from 'fp-ts/lib/Either.js';
import type { Decider } from '../shared/decider.ts';
import type { Refusal } from '../shared/refusal.ts';
import type { FileEvent } from './events.ts';

/** A tree's files stream: what it stored and when it last stored each (the 90-day keep counts from there). */
export interface TreeFiles {
  readonly stored: Readonly<Record<string, StoredFile>>;
}

/** One file of a tree: its size, when the tree last stored it, and every label a store carried. */
export interface StoredFile {
  readonly size: number;
  readonly stored_ms: number;
  readonly labels: readonly string[];
}

export interface StoreFile {
  readonly type: 'StoreFile';
  readonly tenant: string;
  readonly tree: string;
  readonly job: string;
  readonly run: number;
  readonly call: string;
  readonly sha256: string;
  readonly size: number;
  readonly data_subject: string | null;
  /** The storing job's labels: the file keeps them, and whoever reads it joins them. */
  readonly labels: readonly string[];
  readonly now: number;
}

/** Every store is a fact, a repeat included: it renews the file's keep. */
const decide = (c: StoreFile, _s: TreeFiles): E.Either<Refusal, readonly FileEvent[]> =>
  E.right([
    {
      type: 'FileStored',
      data: {
        tenant: c.tenant,
        tree: c.tree,
        job: c.job,
        run: c.run,
        call: c.call,
        sha256: c.sha256,
        size: c.size,
        data_subject: c.data_subject,
        stored_ms: c.now,
        labels: [...c.labels].sort(),
      },
    },
  ]);

/** A file stored again keeps the labels it had: a later store without them never launders them. */
const evolve = (s: TreeFiles, e: FileEvent): TreeFiles => {
  const labels = [...new Set([...(s.stored[e.data.sha256]?.labels ?? []), ...(e.data.labels ?? [])])].sort();
  return { stored: { ...s.stored, [e.data.sha256]: { size: e.data.size, stored_ms: e.data.stored_ms, labels } } };
};

export const treeFilesDecider: Decider<StoreFile, FileEvent, TreeFiles> = { initialState: () => ({ stored: {} }), evolve, decide };
