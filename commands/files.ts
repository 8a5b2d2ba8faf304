import { createHash } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { BlobStore, OpenedBlob } from '../domain/ports/blob-store.ts';
import { handedAlready, treeFilesDecider, type HandFiles } from '../domain/files/decide.ts';
import { fileRef, MAX_FILE_BYTES, shaOfRef, treeOf } from '../domain/files/ref.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import type { CallContext } from '../queries/call-context.ts';
import { handleCommand, loadState } from './handle.ts';
import { joinFileLabels, type JobLoader } from './file-labels.ts';

/** A file an admin start hands on: the tree it is found in, and whose key seals it there. */
export interface HandSource {
  readonly sha256: string;
  readonly from_tree: string;
  readonly data_subject: string | null;
  readonly size: number;
}

export const filesStream = (tenant: string, tree: string) => `files:${tenant}:${tree}`;

/** One answer for every file a caller may not read: the same as for a file never stored. */
const notFound = (): Refusal => refusal('not_found', {});

/** Files between tools (SPEC §13): stored and read by the job tree the ticket names, never by the request. */
export const fileCommands = (deps: { store: EventStore; blobs: BlobStore; clock: Clock; jobs?: JobLoader }) => ({
  async put(ctx: CallContext, bytes: Uint8Array, correlationId?: string): Promise<E.Either<Refusal, { ref: string; size: number; position: number | null }>> {
    if (bytes.length > MAX_FILE_BYTES) return E.left(refusal('too_large', { limit: MAX_FILE_BYTES }));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const tree = treeOf(ctx.chain, ctx.job);
    const now = deps.clock.now();
    // The bytes go in first: a FileStored event always names a file that can be read.
    await deps.blobs.put({ tenant: ctx.tenant, tree, sha256 }, bytes, ctx.data_subject, now);
    const stored = await handleCommand(
      deps.store,
      filesStream(ctx.tenant, tree),
      treeFilesDecider,
      {
        type: 'StoreFile',
        tenant: ctx.tenant,
        tree,
        job: ctx.job,
        run: ctx.run,
        call: ctx.call,
        sha256,
        size: bytes.length,
        data_subject: ctx.data_subject,
        labels: ctx.labels,
        now,
      },
      { tenant: ctx.tenant, correlationId: correlationId ?? null, causationId: ctx.call },
    );
    return E.map((h: { position: number | null }) => ({ ref: fileRef(sha256), size: bytes.length, position: h.position }))(stored);
  },

  holds: (tenant: string, tree: string): Promise<boolean> => deps.blobs.holds(tenant, tree),

  /**
   * The files an admin start names, each found in a tree of the tenant that can still open it
   * (checked before the start, so a start naming a file nobody holds writes nothing).
   */
  async handable(tenant: string, refs: readonly string[]): Promise<E.Either<Refusal, HandSource[]>> {
    const sources: HandSource[] = [];
    for (const ref of [...new Set(refs)]) {
      const sha256 = shaOfRef(ref);
      if (sha256 === null) return E.left(refusal('invalid', { field: 'files', reason: `${JSON.stringify(ref)} is not oz0-file:sha256:<hex>` }));
      let found: HandSource | null = null;
      for (const h of await deps.blobs.holders(tenant, sha256)) {
        const opened = await deps.blobs.open({ tenant, tree: h.tree, sha256 });
        if (opened) {
          found = { sha256, from_tree: h.tree, data_subject: h.data_subject, size: opened.size };
          break;
        }
      }
      if (!found) return E.left(refusal('not_found', { what: 'file', ref }));
      sources.push(found);
    }
    return E.right(sources);
  },

  /**
   * Hands the files to the new job's tree: each is copied under a data key of the receiving
   * tree (sealed with the source's data subject's key when it had one, so erasing that subject
   * still reaches the copy), keeping the labels it carried, then `FilesHanded` is appended.
   */
  async hand(tenant: string, to: { tree: string; job: string; run: number; data_subject: string | null }, sources: readonly HandSource[]) {
    const now = deps.clock.now();
    const files: HandFiles['files'][number][] = [];
    // A start sent again hands only what its first sending could not (nothing is copied twice).
    const { state: receiving } = await loadState(deps.store, filesStream(tenant, to.tree), treeFilesDecider);
    for (const s of sources) {
      if (handedAlready(receiving, to.job, s.sha256)) continue;
      const opened = await deps.blobs.open({ tenant, tree: s.from_tree, sha256: s.sha256 });
      if (!opened) continue;
      const chunks: Uint8Array[] = [];
      for await (const chunk of opened.chunks()) chunks.push(chunk);
      const sealedBy = s.data_subject ?? to.data_subject;
      await deps.blobs.put({ tenant, tree: to.tree, sha256: s.sha256 }, Buffer.concat(chunks), sealedBy, now);
      const { state } = await loadState(deps.store, filesStream(tenant, s.from_tree), treeFilesDecider);
      files.push({ sha256: s.sha256, size: opened.size, from_tree: s.from_tree, labels: state.stored[s.sha256]?.labels ?? [], data_subject: sealedBy });
    }
    const handed = await handleCommand(
      deps.store,
      filesStream(tenant, to.tree),
      treeFilesDecider,
      { type: 'HandFiles', tenant, tree: to.tree, job: to.job, run: to.run, files, data_subject: to.data_subject, now },
      { tenant, causationId: to.job },
    );
    return E.map((h: { position: number | null }) => ({ handed: files.map((f) => fileRef(f.sha256)), position: h.position }))(handed);
  },

  /**
   * The file for the ticket's tree, once its labels are joined into the reading job (`joined`:
   * the position to wait for before answering, or null); across a label wall it is withheld.
   */
  async open(ctx: CallContext, ref: string): Promise<E.Either<Refusal, OpenedBlob & { joined: number | null }>> {
    const sha256 = shaOfRef(ref);
    if (sha256 === null) return E.left(notFound());
    const tree = treeOf(ctx.chain, ctx.job);
    const opened = await deps.blobs.open({ tenant: ctx.tenant, tree, sha256 });
    if (!opened) return E.left(notFound());
    const { state } = await loadState(deps.store, filesStream(ctx.tenant, tree), treeFilesDecider);
    const joined = await joinFileLabels(deps.store, ctx, state.stored[sha256]?.labels ?? [], deps.clock.now(), deps.jobs);
    return E.map((position: number | null) => ({ size: opened.size, chunks: () => opened.chunks(), joined: position }))(joined);
  },
});

export type FileCommands = ReturnType<typeof fileCommands>;
