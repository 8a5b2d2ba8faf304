import { describe, it } from 'vitest';
import { FILE_KEEP_MS, treeFilesDecider, type RemoveFiles } from '../../../domain/files/decide.ts';
import type { FileEvent } from '../../../domain/files/events.ts';
import { specify } from '../../support/decider.ts';

const { given } = specify(treeFilesDecider);
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

const stored = (sha256: string, at: number, data_subject: string | null = null): FileEvent => ({
  type: 'FileStored',
  data: { tenant: 't', tree: 'root', job: 'root', run: 1, call: 'c', sha256, size: 10, data_subject, stored_ms: at, labels: [] },
});
const remove = (o: Partial<RemoveFiles>): RemoveFiles => ({
  type: 'RemoveFiles',
  tenant: 't',
  tree: 'root',
  reason: 'retention',
  candidates: [A, B],
  held: [],
  now: FILE_KEEP_MS,
  holds_at: { stream: 'tenant-t', revision: 0 },
  ...o,
});
const removed = (sha256: string, reason: 'retention' | 'erasure', at: number): FileEvent => ({
  type: 'FileRemoved',
  data: { tenant: 't', tree: 'root', sha256, reason, removed_ms: at },
});

describe("a tree's files decide their removal (SPEC §13, §7)", () => {
  it('given a file stored 90 days ago, when retention runs, then it is removed; one stored later is not', () =>
    given([stored(A, 0), stored(B, 1)])
      .when(remove({}))
      .then([removed(A, 'retention', FILE_KEEP_MS)]));

  it('given a file stored again since it was nominated, when retention runs, then it stays', () =>
    given([stored(A, 0), stored(A, 10)])
      .when(remove({ candidates: [A] }))
      .thenNothing());

  it('given a file handed to the tree later, when retention runs, then the handing renewed its keep', () =>
    given([
      stored(A, 0),
      {
        type: 'FilesHanded',
        data: {
          tenant: 't',
          tree: 'root',
          job: 'root',
          run: 1,
          files: [{ sha256: A, size: 10, from_tree: 'other', labels: [], data_subject: null }],
          data_subject: null,
          handed_ms: 5,
        },
      },
    ])
      .when(remove({ candidates: [A] }))
      .thenNothing());

  it('given a held file, when retention runs, then it stays', () =>
    given([stored(A, 0)])
      .when(remove({ held: [A] }))
      .thenNothing());

  it('given files of two subjects, when one is erased, then only theirs go, whatever their age', () =>
    given([stored(A, 5, 'user:ada'), stored(B, 5, 'user:bob')])
      .when(remove({ reason: 'erasure', data_subject: 'user:ada', now: 6 }))
      .then([removed(A, 'erasure', 6)]));

  it('given a removed file, when retention runs again, then nothing is removed twice', () =>
    given([stored(A, 0), removed(A, 'retention', 1)])
      .when(remove({ candidates: [A] }))
      .thenNothing());
});
