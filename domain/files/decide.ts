import * as E from 'fp-ts/lib/Either.js';
import type { Decider } from '../shared/decider.ts';
import type { Refusal } from '../shared/refusal.ts';
import type { FileEvent } from './events.ts';

/** A tree's files stream: what it stored and when it last stored each (the 90-day keep counts from there). */
export interface TreeFiles {
  readonly stored: Readonly<Record<string, { size: number; stored_ms: number }>>;
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
      },
    },
  ]);

const evolve = (s: TreeFiles, e: FileEvent): TreeFiles => ({ stored: { ...s.stored, [e.data.sha256]: { size: e.data.size, stored_ms: e.data.stored_ms } } });

export const treeFilesDecider: Decider<StoreFile, FileEvent, TreeFiles> = { initialState: () => ({ stored: {} }), evolve, decide };
