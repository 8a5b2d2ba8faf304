import * as E from 'fp-ts/lib/Either.js';
import { randomUUID } from 'node:crypto';
import { FILE_KEEP_MS, treeFilesDecider, type TreeFiles } from '../domain/files/decide.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { KeyShredder } from '../domain/ports/key-shredder.ts';
import { isHeld, type HoldsAt, type Selector } from '../domain/retention/holds.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { filesStream } from './files.ts';
import { handle } from './handle.ts';

/** What a run did to a tenant's files; `any` says whether the tenant had files to judge. */
export interface FilesSwept {
  readonly removed: number;
  readonly deferred: number;
  readonly position: number | null;
  readonly any: boolean;
}

/**
 * A file as a hold sees it (SPEC §7 selectors): the pseudo-plugin `~files` in scope
 * `tree:<root>`, keyed by digest; its data subject; the tree's root and every job that stored
 * it or was handed it (so `job` holds a tree's files, `data_subject` a subject's, `tenant` all).
 */
const heldFile = (holds: readonly Selector[], tree: string, sha256: string, s: TreeFiles) => {
  const f = s.stored[sha256];
  return isHeld(holds, {
    plugin: '~files',
    scope: `tree:${tree}`,
    key: sha256,
    data_subjects: f?.data_subject ? [f.data_subject] : [],
    tree_jobs: [tree, ...(f?.jobs ?? [])],
  });
};

/**
 * Retention and erasure of files between tools (SPEC §13, §7). The blob store only nominates;
 * each tree's files stream decides (`RemoveFiles`) against its current state with the expected
 * revision, so a file stored again while retention ran is never removed. A removal is
 * `FileRemoved` on the tree's stream, then the sealed chunks are deleted and the file's key
 * shredded.
 */
export const fileRetention = (deps: { store: EventStore; blobs: BlobStore; keystore: KeyShredder; clock: Clock }) => {
  const sweep = async (
    tenant: string,
    holdsNow: () => Promise<HoldsAt>,
    reason: 'retention' | 'erasure',
    pick: (f: { stored_ms: number; data_subject: string | null }) => boolean,
    subject?: string,
  ): Promise<E.Either<Refusal, FilesSwept>> => {
    const now = deps.clock.now();
    const byTree = new Map<string, string[]>();
    const all = await deps.blobs.list(tenant);
    for (const f of all) if (pick(f)) byTree.set(f.tree, [...(byTree.get(f.tree) ?? []), f.sha256]);
    let removed = 0;
    let deferred = 0;
    let position: number | null = null;
    for (const [tree, candidates] of byTree) {
      const stream = filesStream(tenant, tree);
      // The state and holds the removal is decided on, read again on every attempt: it is
      // appended only while no hold was placed since (a hold placed during the run stops it).
      let state = treeFilesDecider.initialState();
      let held: string[] = [];
      const decided = await handle(
        deps.store,
        stream,
        treeFilesDecider,
        async (s: TreeFiles) => {
          const h = await holdsNow();
          state = s;
          held = candidates.filter((sha) => heldFile(h.holds, tree, sha, s));
          return {
            type: 'RemoveFiles' as const,
            tenant,
            tree,
            reason,
            candidates,
            held,
            ...(subject !== undefined ? { data_subject: subject } : {}),
            now,
            holds_at: h.at,
          };
        },
        { tenant, causation: randomUUID(), correlation: null },
        { conditions: (c) => (c.type === 'RemoveFiles' ? { unmoved: [c.holds_at] } : undefined) },
      );
      if (E.isLeft(decided)) return decided;
      deferred += held.filter((sha) => {
        const f = state.stored[sha];
        return f !== undefined && (reason === 'erasure' || f.stored_ms + FILE_KEEP_MS <= now);
      }).length;
      for (const e of decided.right.events) {
        if (e.type !== 'FileRemoved') continue;
        const storedBy = reason === 'erasure' ? Number.MAX_SAFE_INTEGER : (state.stored[e.data.sha256]?.stored_ms ?? 0);
        // Stored again since the decision: the bytes stay (its FileStored follows the removal).
        if (!(await deps.blobs.remove({ tenant, tree, sha256: e.data.sha256 }, storedBy))) continue;
        await deps.keystore.shredRecord(tenant, '~files', `tree:${tree}`, e.data.sha256);
        removed++;
      }
      if (decided.right.position !== null) position = decided.right.position;
    }
    return E.right({ removed, deferred, position, any: all.length > 0 });
  };

  return {
    /** Files whose tree last stored them 90 days ago or more, unless a hold keeps them. */
    retain: (tenant: string, holds: () => Promise<HoldsAt>) => {
      const now = deps.clock.now();
      return sweep(tenant, holds, 'retention', (f) => f.stored_ms + FILE_KEEP_MS <= now);
    },
    /** Every file sealed with the subject's key, unless a hold keeps it (then it is deferred). */
    erase: (tenant: string, subject: string, holds: () => Promise<HoldsAt>) => sweep(tenant, holds, 'erasure', (f) => f.data_subject === subject, subject),
  };
};

export type FileRetention = ReturnType<typeof fileRetention>;
