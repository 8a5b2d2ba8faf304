import type { StreamAt } from '../ports/event-store.ts';
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
  /** Whose key seals it: erasing that subject removes it. */
  readonly data_subject: string | null;
  /** The jobs that stored it or were handed it: a hold on one of them keeps it. */
  readonly jobs: readonly string[];
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

/** The admin start's handing: files other trees stored, with the labels they carried there. */
export interface HandFiles {
  readonly type: 'HandFiles';
  readonly tenant: string;
  readonly tree: string;
  readonly job: string;
  readonly run: number;
  readonly files: readonly { sha256: string; size: number; from_tree: string; labels: readonly string[]; data_subject: string | null }[];
  readonly data_subject: string | null;
  readonly now: number;
}

/** A file is kept this long after its tree last stored it (or was handed it) (SPEC §13). */
export const FILE_KEEP_MS = 90 * 24 * 3600 * 1000;

/**
 * Retention and erasure decided like a command (SPEC §7): the read model only nominates; the
 * tree's stream judges each candidate as it stands now, so a store that renewed a file while
 * retention ran is never undone. `held` are the candidates a legal hold covers: never removed.
 */
export interface RemoveFiles {
  readonly type: 'RemoveFiles';
  readonly tenant: string;
  readonly tree: string;
  readonly reason: 'retention' | 'erasure';
  readonly candidates: readonly string[];
  readonly held: readonly string[];
  /** For an erasure: the data subject whose files go. */
  readonly data_subject?: string | undefined;
  readonly now: number;
  /** Where the tenant's stream stood when `held` was judged (the append's condition). */
  readonly holds_at: StreamAt;
}

export type FilesCommand = StoreFile | HandFiles | RemoveFiles;

/**
 * Whether the job already holds this file in the tree (a start sent again after its handing was
 * answered `unavailable` hands what is missing, never a file twice).
 */
export const handedAlready = (s: TreeFiles, job: string, sha256: string): boolean => s.stored[sha256]?.jobs.includes(job) === true;

const removable = (c: RemoveFiles, s: TreeFiles, sha256: string): boolean => {
  const f = s.stored[sha256];
  if (!f || c.held.includes(sha256)) return false;
  return c.reason === 'retention' ? f.stored_ms + FILE_KEEP_MS <= c.now : c.data_subject !== undefined && f.data_subject === c.data_subject;
};

/** Every store is a fact, a repeat included: it renews the file's keep. So is every handing. */
const decide = (c: FilesCommand, s: TreeFiles): E.Either<Refusal, readonly FileEvent[]> => {
  switch (c.type) {
    case 'StoreFile':
      return E.right([
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
    case 'HandFiles': {
      const files = c.files.filter((f) => !handedAlready(s, c.job, f.sha256));
      return E.right(
        files.length === 0
          ? []
          : [
              {
                type: 'FilesHanded',
                data: {
                  tenant: c.tenant,
                  tree: c.tree,
                  job: c.job,
                  run: c.run,
                  files: files.map((f) => ({ ...f, labels: [...f.labels].sort() })),
                  data_subject: c.data_subject,
                  handed_ms: c.now,
                },
              },
            ],
      );
    }
    case 'RemoveFiles':
      return E.right(
        [...new Set(c.candidates)]
          .filter((sha256) => removable(c, s, sha256))
          .sort()
          .map((sha256) => ({ type: 'FileRemoved' as const, data: { tenant: c.tenant, tree: c.tree, sha256, reason: c.reason, removed_ms: c.now } })),
      );
  }
};

const withJob = (s: TreeFiles, sha256: string, job: string) => [...new Set([...(s.stored[sha256]?.jobs ?? []), job])].sort();
const merged = (s: TreeFiles, sha256: string, labels: readonly string[]) => [...new Set([...(s.stored[sha256]?.labels ?? []), ...labels])].sort();

/** A file stored again keeps the labels it had: a later store without them never launders them. */
const evolve = (s: TreeFiles, e: FileEvent): TreeFiles => {
  switch (e.type) {
    case 'FileStored': {
      const d = e.data;
      const file: StoredFile = {
        size: d.size,
        stored_ms: d.stored_ms,
        labels: merged(s, d.sha256, d.labels ?? []),
        data_subject: d.data_subject,
        jobs: withJob(s, d.sha256, d.job),
      };
      return { stored: { ...s.stored, [d.sha256]: file } };
    }
    case 'FilesHanded': {
      const stored = { ...s.stored };
      for (const f of e.data.files)
        stored[f.sha256] = {
          size: f.size,
          stored_ms: e.data.handed_ms,
          labels: merged(s, f.sha256, f.labels),
          data_subject: s.stored[f.sha256]?.data_subject ?? f.data_subject,
          jobs: withJob(s, f.sha256, e.data.job),
        };
      return { stored };
    }
    case 'FileRemoved': {
      const { [e.data.sha256]: _gone, ...rest } = s.stored;
      return { stored: rest };
    }
  }
};

export const treeFilesDecider: Decider<FilesCommand, FileEvent, TreeFiles> = { initialState: () => ({ stored: {} }), evolve, decide };
